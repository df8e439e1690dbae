// 2-D shared array (a padded 16 x 17 tile) in a 2-D grid of 2-D blocks: a tiled
// matrix transpose.
//
// transpose_ok: thread (tx, ty) writes tile[ty][tx], barrier, then reads
//   tile[tx][ty], written by thread (ty, tx) of the same block before the
//   barrier: ordered, race-free.
// transpose_nosync: the barrier is missing.  For tx != ty the element tile[tx][ty]
//   read by (tx, ty) [TR] was written by the different thread (ty, tx) [TW] with
//   nothing in between: read-write race [TW]-[TR] (shared).  The diagonal
//   elements are read by their writer.  Launch with 16 x 16 blocks, width =
//   16 * gridDim.x = 16 * gridDim.y.

__global__ void transpose_ok(const float *in, float *out, int width)
{
    __shared__ float tile[16][17];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * 16 + tx;
    int y = blockIdx.y * 16 + ty;
    tile[ty][tx] = in[y * width + x];
    __syncthreads();
    int ox = blockIdx.y * 16 + tx;
    int oy = blockIdx.x * 16 + ty;
    out[oy * width + ox] = tile[tx][ty];
}

__global__ void transpose_nosync(const float *in, float *out, int width)
{
    __shared__ float tile[16][17];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * 16 + tx;
    int y = blockIdx.y * 16 + ty;
    tile[ty][tx] = in[y * width + x];      // [TW]
    int ox = blockIdx.y * 16 + tx;
    int oy = blockIdx.x * 16 + ty;
    out[oy * width + ox] = tile[tx][ty];   // [TR] no barrier before this read
}
