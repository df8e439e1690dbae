// Warp collectives over values loaded from global memory: __shfl_sync (broadcast),
// __shfl_up_sync (inclusive scan), __shfl_down_sync (reduction), __shfl_xor_sync
// (butterfly), __ballot_sync, __any_sync, __all_sync and __activemask, with results
// written back to global memory.

__global__ void warp_scan_reduce(const int* in, int* scan, int* sums, int* bcast) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[g];
    int s = v;
    for (int d = 1; d < 32; d *= 2) {
        int up = __shfl_up_sync(0xffffffffu, s, d);
        if (lane >= d) s += up;
    }
    scan[g] = s;
    int r = v;
    for (int d = 16; d > 0; d /= 2) r += __shfl_down_sync(0xffffffffu, r, d);
    if (lane == 0) sums[g / 32] = r;
    bcast[g] = __shfl_sync(0xffffffffu, in[g], 7) + __shfl_xor_sync(0xffffffffu, v, 5);
}

__global__ void warp_votes(const int* in, unsigned* ballots, int* flags, int threshold) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int above = in[g] > threshold;
    unsigned b = __ballot_sync(0xffffffffu, above);
    int any = __any_sync(0xffffffffu, in[g] > 2 * threshold);
    int all = __all_sync(0xffffffffu, in[g] >= 0);
    if (lane == 0) {
        ballots[g / 32] = b;
        flags[2 * (g / 32)] = any;
        flags[2 * (g / 32) + 1] = all + __popc(b);
    }
    if (in[g] % 2 == 0) {
        unsigned active = __activemask();
        ballots[gridDim.x * blockDim.x / 32 + g] = active;
    }
}
