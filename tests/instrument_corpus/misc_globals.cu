// __device__ and __constant__ variables:
// - a __device__ array written and read per element by a grid of several blocks;
// - a __device__ scalar with an initializer, only read;
// - a __device__ counter updated with atomics by every thread of one block and read
//   after a barrier; a __device__ struct written by one thread, read after a barrier;
// - __constant__ arrays (with and without an initializer), only read: not monitored.

__device__ int g_table[256];
__device__ float g_scale = 1.5f;
__device__ unsigned g_hits;

struct Config {
    int offset;
    int stride;
};

__device__ Config g_config;

__constant__ int c_weights[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__constant__ float c_bias[4];

__global__ void device_arrays(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    g_table[i] = in[i] * c_weights[i % 8];
    g_table[i] += (int)(g_scale * 2.0f);
    out[i] = g_table[i] + (int)c_bias[i % 4];
}

// One block only: the __device__ scalars are shared by the whole block.
__global__ void device_scalars(const int* in, int* out) {
    int t = threadIdx.x;
    if (t == 0) {
        g_hits = 0u;
        g_config.offset = 5;
        g_config.stride = 3;
    }
    __syncthreads();
    if (in[t] % 3 == 0) atomicAdd(&g_hits, 1u);
    __syncthreads();
    out[t] = (int)g_hits * 1000 + in[(t * g_config.stride + g_config.offset) % blockDim.x];
}
