// 3-D grids of 3-D blocks: every thread writes its global coordinates.
__global__ void coordinates(int* out, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    int i = (z * ny + y) * nx + x;
    out[3 * i] = x;
    out[3 * i + 1] = y;
    out[3 * i + 2] = z;
}

// Grid and block shape as the kernel sees them, from one thread per block.
__global__ void shape(dim3* dims, uint3* block_ids) {
    int b = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        dims[0] = gridDim;
        dims[1] = blockDim;
        block_ids[b] = blockIdx;
    }
}
