// A __shared__ scalar (not an array), written by one thread and read by all.
//
// shared_scalar_ok: thread 0 writes pivot, __syncthreads, every thread reads it:
//   the write happens-before every read.  Each block has its own pivot, so the
//   writes of different blocks are to different locations.  Race-free.
// shared_scalar_race: no barrier.  The reads [SR] by threads 1..n-1 of a block are
//   unordered with thread 0's write [SW]: read-write race [SW]-[SR] (shared).

__global__ void shared_scalar_ok(const int *in, int *out)
{
    __shared__ int pivot;
    int t = threadIdx.x;
    if (t == 0)
        pivot = in[blockIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = pivot + t;
}

__global__ void shared_scalar_race(const int *in, int *out)
{
    __shared__ int pivot;
    int t = threadIdx.x;
    if (t == 0)
        pivot = in[blockIdx.x];                        // [SW]
    out[blockIdx.x * blockDim.x + t] = pivot + t;      // [SR] no barrier
}
