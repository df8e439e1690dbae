// A launch with more threads per block than CUDA allows.
// BUG_UNCHECKED: nothing looks at the launch's error.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(int* v) { v[threadIdx.x] = 1; }

int main() {
  int* d;
  cudaMalloc(&d, 2048 * sizeof(int));
  fill<<<1, 2048>>>(d);
#ifndef BUG_UNCHECKED
  cudaError_t e = cudaGetLastError();
  printf("launch: %s\n", cudaGetErrorString(e));
#endif
  cudaFree(d);
  return 0;
}
