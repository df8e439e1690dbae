// Block-scope atomics within a block after a plain write, with and without a
// barrier in between.
//
// ba_after_write_sync: thread 0 of each block plain-writes c[blockIdx.x], then
//   __syncthreads, then every thread of the block does atomicAdd_block on it.
//   The write happens-before every atomic; the atomics are all of one block:
//   race-free.
// ba_after_write_nosync: no barrier.  The atomics [AA] of threads 1..n-1 are
//   unordered with thread 0's plain write [AW]: atomic-plain race [AW]-[AA].
//   Thread 0's own atomic follows its write in program order.

__global__ void ba_after_write_sync(int *c)
{
    if (threadIdx.x == 0)
        c[blockIdx.x] = 100;
    __syncthreads();
    atomicAdd_block(&c[blockIdx.x], 1);
}

__global__ void ba_after_write_nosync(int *c)
{
    if (threadIdx.x == 0)
        c[blockIdx.x] = 100;                          // [AW]
    atomicAdd_block(&c[blockIdx.x], 1);               // [AA]
}
