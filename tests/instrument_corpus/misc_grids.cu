// Multi-dimensional launches: a 2-D grid of 2-D blocks (matrix update by row and
// column), and a 3-D grid of 3-D blocks (a 7-point stencil over a volume, reading
// neighbours from the input and writing only its own output element).

__global__ void grid2d(const float* a, const float* b, float* c, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int at = y * width + x;
    c[at] = a[at] * 2.0f + b[x * height + y];
    c[at] -= a[y * width + (x + 1) % width];
}

__global__ void grid3d_stencil(const int* in, int* out, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    int at = (z * ny + y) * nx + x;
    int s = 6 * in[at];
    if (x > 0) s -= in[at - 1];
    if (x + 1 < nx) s -= in[at + 1];
    if (y > 0) s -= in[at - nx];
    if (y + 1 < ny) s -= in[at + nx];
    if (z > 0) s -= in[at - nx * ny];
    if (z + 1 < nz) s -= in[at + nx * ny];
    out[at] = s;
}
