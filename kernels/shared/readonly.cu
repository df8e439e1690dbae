// Read-only after a barrier, in shared memory: race-free.
//
// The first 16 threads fill a per-block lookup table, __syncthreads, then every
// thread reads every entry many times and nobody writes it again.  Every read is
// ordered after every write by the barrier, and reads never conflict with reads.

__global__ void readonly_after_barrier_shared(const int *in, int *out)
{
    __shared__ int table[16];
    int t = threadIdx.x;
    if (t < 16)
        table[t] = in[t] * 3 + 1;
    __syncthreads();
    int acc = 0;
    for (int r = 0; r < 4; ++r)
        for (int k = 0; k < 16; ++k)
            acc += table[(k + t + r) % 16];
    out[blockIdx.x * blockDim.x + t] = acc;
}
