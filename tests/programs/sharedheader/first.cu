// Launches its own kernel and second.cu's; both call bump() of counter.cuh.
#include <cstdio>
#include <cuda_runtime.h>
#include "counter.cuh"

__global__ void first_kernel(int* counter) { bump(counter); }
__global__ void second_kernel(int* data, int* counter);

int main() {
  int *data, *counter;
  cudaMalloc(&data, 32 * sizeof(int));
  cudaMalloc(&counter, 2 * sizeof(int));
  cudaMemset(counter, 0, 2 * sizeof(int));
  first_kernel<<<1, 1>>>(counter);
  second_kernel<<<1, 32>>>(data, counter + 1);
  int h[2];
  cudaMemcpy(h, counter, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d\n", h[0]);
  cudaFree(data);
  cudaFree(counter);
  return 0;
}
