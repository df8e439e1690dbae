// __device__ and __constant__ variables, set from the host.
__constant__ float coefficients[4];
__device__ int* results;
__device__ unsigned long long launches = 0;

namespace settings {
__device__ int offset;
}

__global__ void polynomial(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = ((coefficients[3] * v + coefficients[2]) * v + coefficients[1]) * v
               + coefficients[0];
    }
}

// Writes through a pointer held in a __device__ variable.
__global__ void through_pointer() {
    results[threadIdx.x] = threadIdx.x + settings::offset;
    if (threadIdx.x == 0) atomicAdd(&launches, 1ull);
}
