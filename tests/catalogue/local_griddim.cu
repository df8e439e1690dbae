// Host variables named like the built-ins gridDim and blockDim.
// expect: 8
#include <cstdio>

__global__ void count(int* n) { atomicAdd(n, (int)(gridDim.x * blockDim.x) / 8); }

int main() {
  int* n;
  cudaMallocManaged(&n, sizeof(int));
  *n = 0;
  dim3 gridDim(2);
  dim3 blockDim(4);
  count<<<gridDim, blockDim>>>(n);
  cudaDeviceSynchronize();
  std::printf("%d\n", *n);
  return 0;
}
