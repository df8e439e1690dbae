// Histograms with atomics: straight to global memory (device scope), and
// through a per-block shared histogram (block scope) merged with system scope.
__global__ void histogram_global(const unsigned char* data, int n, unsigned* bins) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[data[i]], 1u);
}

__global__ void histogram_shared(const unsigned char* data, int n, unsigned* bins) {
    __shared__ unsigned local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd_block(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b]) atomicAdd_system(&bins[b], local[b]);
}
