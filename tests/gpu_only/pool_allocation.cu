// cudaMallocAsync from an explicit memory pool: the pool overloads (void**
// and T**) of a function whose stream-only overloads the CPU backend runs.
// refuses: memory pools (cudaMemPool_t)
// warns: memory pools (cudaMallocAsync)
#include <cuda_runtime.h>

__global__ void fill(float* p, int* q) {
  p[threadIdx.x] = 1.0f;
  q[threadIdx.x] = 2;
}

static void from_pool(cudaMemPool_t pool, cudaStream_t stream) {
  float* p;
  int* q;
  cudaMallocAsync(&p, 64 * sizeof(float), pool, stream);
  cudaMallocAsync((void**)&q, 64 * sizeof(int), pool, stream);
  fill<<<1, 64, 0, stream>>>(p, q);
  cudaFreeAsync(p, stream);
  cudaFreeAsync(q, stream);
}

int main() {
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaMemPool_t pool;
  cudaDeviceGetDefaultMemPool(&pool, 0);
  from_pool(pool, stream);
  cudaStreamSynchronize(stream);
  return 0;
}
