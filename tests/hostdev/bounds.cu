// Copies in and out of a device array.
// BUG_BOUNDS: both copies use the host array's size, larger than the device array's.
#include <cstdio>
#include <cuda_runtime.h>

#define N 100
#define M 60

__global__ void twice(int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= 2;
}

int main() {
  static int h[N];
  for (int i = 0; i < N; ++i) h[i] = i;
  int* d;
  cudaMalloc(&d, M * sizeof(int));
#ifdef BUG_BOUNDS
  size_t bytes = sizeof(h);
#else
  size_t bytes = M * sizeof(int);
#endif
  cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
  twice<<<1, M>>>(d, M);
  cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
  printf("h[%d] = %d\n", M - 1, h[M - 1]);
  cudaFree(d);
  return 0;
}
