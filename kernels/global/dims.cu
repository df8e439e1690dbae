// 2-D and 3-D grids and blocks.
//
// global_2d: 2-D grid of 2-D blocks; each thread computes (x, y) and reads and
//   writes element y * width + x, a bijection of threads onto elements:
//   race-free.  Launch with width = gridDim.x * blockDim.x.
// global_3d_ok: 3-D grid of 3-D blocks; the linearised block id times the block
//   size plus the linearised thread id is a bijection onto [0, total):
//   race-free.
// global_3d_forgets_z: 3-D block (4, 4, 4) where the index ignores threadIdx.z,
//   so the 4 threads (x, y, 0..3) of a block write the same element [ZW] with
//   nothing in between: write-write race [ZW]-[ZW].  Blocks use disjoint
//   16-element segments.

__global__ void global_2d(const float *in, float *out, int width)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    out[y * width + x] = 2.0f * in[y * width + x];
}

__global__ void global_3d_ok(int *out)
{
    int bid = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    int tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    int bsize = blockDim.x * blockDim.y * blockDim.z;
    out[bid * bsize + tid] = bid * 1000 + tid;
}

__global__ void global_3d_forgets_z(int *out)
{
    int bid = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    int idx = bid * 16 + threadIdx.y * 4 + threadIdx.x;
    out[idx] = threadIdx.z;                           // [ZW]
}
