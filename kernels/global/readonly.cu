// Read-only sharing in global memory.
//
// global_readonly_after_barrier: the first 16 threads of each block fill the
//   block's own 16-entry table segment, __syncthreads, then every thread of the
//   block reads all 16 entries.  Every read is in the writer's block and after
//   the barrier; nothing is written after it: race-free.
// global_readread_cross_block: every thread of every block reads in[0],
//   in[threadIdx.x] and in[(i * 7) % 64]; nobody writes `in`.  Read-read sharing
//   never conflicts, across blocks too: race-free.

__global__ void global_readonly_after_barrier(int *table, int *out)
{
    int t = threadIdx.x;
    int b = blockIdx.x;
    if (t < 16)
        table[b * 16 + t] = t * t + b;
    __syncthreads();
    int sum = 0;
    for (int k = 0; k < 16; ++k)
        sum += table[b * 16 + (k + t) % 16];
    out[b * blockDim.x + t] = sum;
}

__global__ void global_readread_cross_block(const int *in, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int s = in[0] + in[threadIdx.x] + in[(i * 7) % 64];
    out[i] = s;
}
