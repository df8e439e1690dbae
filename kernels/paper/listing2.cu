// Paper Listing 2 (own kernels for the idea): the Listing 1 pattern separated by
// __syncthreads().
//
// listing2_shared: thread t writes s[t], barrier, then reads s[(t + 1) % n].  The
//   writer of s[(t + 1) % n] is in the same block and wrote before the barrier,
//   so the write happens-before the read: race-free.  Shared memory is per block,
//   so equal indices in different blocks are different locations.
// listing2_global: the same pattern on a global array, each block using its own
//   segment a[base .. base + n): every reader is in the writer's block and after
//   the barrier: race-free.
// listing2_cross_block: the neighbour index wraps over the whole array, so the
//   first element of every block is read by the last thread of the previous block
//   (and a[0] by the last thread of the grid).  __syncthreads orders threads of
//   one block only; between blocks nothing orders the write [XW] and the read
//   [XR]: read-write race (with grid >= 2).  Pairs inside one block are ordered
//   by the barrier, so [XW]-[XR] is the only racing line pair.

__global__ void listing2_shared(const int *in, int *out)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = in[i];
    __syncthreads();
    out[i] = s[(t + 1) % blockDim.x];
}

__global__ void listing2_global(int *a, int *out)
{
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    a[base + t] = t;
    __syncthreads();
    out[base + t] = a[base + (t + 1) % blockDim.x];
}

__global__ void listing2_cross_block(int *a, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = i;                          // [XW]
    __syncthreads();                   // orders the threads of one block only
    out[i] = a[(i + 1) % n];           // [XR] the last thread of a block reads into the next block
}
