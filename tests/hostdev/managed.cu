// A kernel fills managed memory; the host reads the result.
// BUG_NO_SYNC: the host reads before the kernel is known to be done.
#include <cstdio>
#include <cuda_runtime.h>

#define N 128

__global__ void fill(float* m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) m[i] = 0.5f * i;
}

int main() {
  float* m;
  cudaMallocManaged(&m, N * sizeof(float));
  fill<<<N / 32, 32>>>(m, N);
#ifndef BUG_NO_SYNC
  cudaDeviceSynchronize();
#endif
  printf("m[10] = %g\n", m[10]);
  cudaFree(m);
  return 0;
}
