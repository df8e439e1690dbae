// &a[i] and a + k passed to atomics: a block-local shared histogram, flushed to
// a global one.  Race-free.
//
// Threads 0..7 zero local[0..7], barrier, every thread does atomicAdd_block on
// &local[in[i] % 8] (which bin depends on the data, but every access to local is
// a block-scope atomic of this block, so no pair conflicts whatever the data),
// barrier, threads 0..7 read local[t] and atomicAdd it into &hist[t], and every
// thread does atomicAdd on hist + 8 + t % 4.  The global accesses are all
// device-scope atomics (GA vs GA across blocks never conflicts).  The zeroing
// writes are ordered before the atomics, and the atomics before the reads, by
// the barriers.  Needs in[i] >= 0.

__global__ void forms_atomic_addr(const int *in, int *hist)
{
    __shared__ int local[8];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t < 8)
        local[t] = 0;
    __syncthreads();
    atomicAdd_block(&local[in[i] % 8], 1);
    __syncthreads();
    if (t < 8)
        atomicAdd(&hist[t], local[t]);
    atomicAdd(hist + 8 + t % 4, 1);
}
