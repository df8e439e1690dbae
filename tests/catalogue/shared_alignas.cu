// `__shared__ alignas(...)`: a standard attribute after __shared__, which
// nvcc accepts and clang and g++ refuse in that place.
// expect: 16 496
#include <cstdio>

struct alignas(16) Quad { float v[4]; };

__global__ void sum(int* out) {
  __shared__ alignas(alignof(Quad)) float tile[32];
  __shared__ alignas(16) int total;
  if (threadIdx.x == 0) total = 0;
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  atomicAdd(&total, (int)tile[31 - threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) {
    out[0] = (reinterpret_cast<unsigned long>(tile) % 16 == 0) ? 16 : 0;
    out[1] = total;
  }
}

int main() {
  int* out;
  cudaMallocManaged(&out, 2 * sizeof(int));
  sum<<<1, 32>>>(out);
  cudaDeviceSynchronize();
  printf("%d %d\n", out[0], out[1]);
  return 0;
}
