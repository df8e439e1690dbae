// Warp operations beyond reductions.

// Broadcast within segments of 8 lanes (the width argument), and rotation.
__global__ void segments(const int* in, int* broadcast, int* rotated) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    broadcast[i] = __shfl_sync(0xffffffffu, in[i], 3, 8);
    rotated[i] = __shfl_sync(0xffffffffu, in[i], (lane + 1) % 32);
}

// Lanes with equal keys find each other; the warp agrees or not on a value.
__global__ void matching(const int* keys, unsigned* peers, int* all_same) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    peers[i] = __match_any_sync(0xffffffffu, keys[i]);
    int pred = 0;
    unsigned m = __match_all_sync(0xffffffffu, keys[i] / 1000, &pred);
    if (threadIdx.x % 32 == 0) all_same[i / 32] = pred ? __popc(m) : -1;
}

// __activemask in a divergent branch: the lanes that took it, and a shuffle
// restricted to them.
__global__ void active_lanes(unsigned* masks, int* firsts) {
    int lane = threadIdx.x % 32;
    if (lane % 3 == 0) {
        unsigned m = __activemask();
        masks[threadIdx.x] = m;
        firsts[threadIdx.x] = __shfl_sync(m, lane, __ffs(m) - 1);
    } else {
        masks[threadIdx.x] = 0;
        firsts[threadIdx.x] = -1;
    }
}

// Half-warp operations with partial masks, in two branches.
__global__ void half_warps(int* out) {
    int lane = threadIdx.x % 32;
    if (lane < 16) {
        out[threadIdx.x] = __reduce_add_sync(0x0000ffffu, lane);
    } else {
        out[threadIdx.x] = (int)__reduce_max_sync(0xffff0000u, (unsigned)lane)
                           + __reduce_min_sync(0xffff0000u, -lane);
    }
}
