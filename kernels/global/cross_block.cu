// Global memory across blocks.
//
// global_ww_cross_block: the classic missing block offset: every thread writes
//   out[threadIdx.x] [GW], so thread t of every block writes the same element.
//   Different blocks are never ordered: write-write race [GW]-[GW].  Within a
//   block each element has one writer.
// global_phases: barrier-separated phases on the block's own segment of a global
//   array (write own, barrier, read neighbours, barrier, write own, barrier,
//   read mirror).  No thread touches another block's segment: race-free.

__global__ void global_ww_cross_block(const int *in, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[threadIdx.x] = in[i];                         // [GW] block offset forgotten
}

__global__ void global_phases(int *a, int *out)
{
    int t = threadIdx.x;
    int n = blockDim.x;
    int *seg = a + blockIdx.x * n;
    seg[t] = t + 1;
    __syncthreads();
    int v = seg[(t + 1) % n] + seg[(t + n - 1) % n];
    __syncthreads();
    seg[t] = v;
    __syncthreads();
    out[blockIdx.x * n + t] = seg[n - 1 - t];
}
