// File-scope __shared__ variables (an array and a scalar) used by two kernels and by
// a device function, plus a file-scope __device__ helper reading them.

__shared__ int fs_tile[128];
__shared__ float fs_scale;

__device__ int fs_neighbour(int t) {
    return fs_tile[(t + 1) % blockDim.x];
}

__global__ void filescope_a(const int* in, int* out) {
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    fs_tile[t] = in[g];
    if (t == 0) fs_scale = 2.0f;
    __syncthreads();
    out[g] = fs_neighbour(t) * (int)fs_scale;
}

__global__ void filescope_b(const int* in, float* out) {
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    if (t == 0) fs_scale = 0.25f;
    fs_tile[t] = in[g] + 1;
    __syncthreads();
    int neighbour = fs_neighbour(t);
    __syncthreads();
    fs_tile[t] += neighbour;
    __syncthreads();
    out[g] = fs_scale * (float)fs_tile[blockDim.x - 1 - t];
}
