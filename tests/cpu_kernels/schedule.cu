// Logs which thread runs each stretch between two waits, in the order the
// stretches run: tests compare it with a model of the scheduler.
__device__ void note(int* log, int* pos) { log[atomicAdd(pos, 1)] = threadIdx.x; }

// Waits: a full-warp shuffle, a barrier, a half-warp shuffle (lanes 0-15),
// then, for threads below `quit` (the others exit), a ballot and a barrier.
__global__ void stretches(int* log, int* pos, int quit) {
    unsigned lane = threadIdx.x % 32;
    int v = threadIdx.x;
    note(log, pos);
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    note(log, pos);
    __syncthreads();
    note(log, pos);
    if (lane < 16) {
        v += __shfl_down_sync(0x0000ffffu, v, 1);
        note(log, pos);
    }
    if (int(threadIdx.x) >= quit) return;
    __ballot_sync(0xffffffffu, v & 1);
    note(log, pos);
    __syncthreads();
    note(log, pos);
}
