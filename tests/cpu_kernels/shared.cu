// Dynamic shared memory, and static shared memory across barriers.
__global__ void reverse_dynamic(const float* in, float* out, int n) {
    extern __shared__ float buffer[];
    int t = threadIdx.x;
    buffer[t] = in[blockIdx.x * n + t];
    __syncthreads();
    out[blockIdx.x * n + t] = buffer[n - 1 - t];
}

// Two views of one dynamic buffer, as kernels carve it up by hand.
__global__ void carve_dynamic(int* out_ints, double* out_doubles) {
    extern __shared__ __align__(16) unsigned char smem[];
    double* ds = reinterpret_cast<double*>(smem);
    int* is = reinterpret_cast<int*>(smem + blockDim.x * sizeof(double));
    ds[threadIdx.x] = 0.5 * threadIdx.x;
    is[threadIdx.x] = 3 * threadIdx.x;
    __syncthreads();
    int j = blockDim.x - 1 - threadIdx.x;
    out_ints[threadIdx.x] = is[j];
    out_doubles[threadIdx.x] = ds[j];
}

// A static device function whose __shared__ array never escapes: values
// written before the barrier by other threads must be seen after it.
static __device__ int rotate_through_shared(int v) {
    __shared__ int slots[128];
    slots[threadIdx.x] = v;
    __syncthreads();
    int r = slots[(threadIdx.x + 1) % blockDim.x];
    __syncthreads();
    return r;
}

__global__ void rotate(const int* in, int* out) {
    out[blockIdx.x * blockDim.x + threadIdx.x] =
        rotate_through_shared(in[blockIdx.x * blockDim.x + threadIdx.x]);
}

// `static __shared__`, `volatile` shared, and a warp exchanging through shared
// memory with __syncwarp in between.
__global__ void warp_exchange(int* out) {
    static __shared__ int scratch[64];
    volatile __shared__ int flag;
    if (threadIdx.x == 0) flag = 7;
    scratch[threadIdx.x] = threadIdx.x * 10;
    __syncwarp();
    int lane = threadIdx.x % 32;
    out[threadIdx.x] = scratch[(threadIdx.x / 32) * 32 + (31 - lane)];
    __syncthreads();
    out[threadIdx.x] += flag;
}
