// __threadfence() is a memory fence, not a barrier: it creates no happens-before
// edge, and without an atomic flag observed after it no message (semantics.md 1.6).
//
// threadfence_not_barrier (2 blocks): thread 0 of block 0 writes data[0] [FW] and
//   fences; every thread of block 1 fences and reads data[0] [FR].  Nothing orders
//   the write and the reads (different blocks, no barrier could help either):
//   read-write race [FW]-[FR].
// threadfence_in_block_race (1 block): thread 0 writes data[1], __threadfence, and
//   thread 1 reads it after its own __threadfence: still unordered: race
//   [TW]-[TR].  With __syncthreads instead it would be race-free.

__global__ void threadfence_not_barrier(int *data, int *out)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        data[0] = 42;                                 // [FW]
    __threadfence();
    if (blockIdx.x == 1)
        out[threadIdx.x] = data[0];                   // [FR]
}

__global__ void threadfence_in_block_race(int *data, int *out)
{
    int t = threadIdx.x;
    if (t == 0)
        data[1] = 7;                                  // [TW]
    __threadfence();
    if (t == 1)
        out[0] = data[1];                             // [TR]
}
