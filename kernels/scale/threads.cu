// 1024 threads per block: thread ids must stay distinguishable (semantics.md 3).
//
// scale_threads_1024_ok (1 block of 1024): thread t writes a[t], __syncthreads,
//   reads a[t ^ 512]: ordered by the barrier: race-free.
// scale_threads_1024_race (1 block of 1024): thread t writes a[t & 511] [TW]:
//   threads t and t + 512 (different warps, same block, no barrier) write the
//   same element: write-write race [TW]-[TW].  A checker that keeps only 9 bits
//   of the thread index sees one thread twice and misses it.

__global__ void scale_threads_1024_ok(int *a, int *out)
{
    int t = threadIdx.x;
    a[t] = t;
    __syncthreads();
    out[t] = a[t ^ 512];
}

__global__ void scale_threads_1024_race(int *a)
{
    int t = threadIdx.x;
    a[t & 511] = t;                                   // [TW]
}
