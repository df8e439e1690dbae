// A kernel that reads and writes one element past the end of its array. On a
// GPU the launch fails with cudaErrorIllegalAddress; hirace's CPU backend
// reports the faulting line, and the program's own error check ends it with
// status 1. (`zero` comes first so that the line reported for `scale` shows
// that line numbers survive the code inserted after each kernel.)
#include <cstdio>
#include <cuda_runtime.h>

__global__ void zero(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0.0f;
}

__global__ void scale(float* x, int n, float by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) x[i] *= by;
}

int main() {
  const int n = 256;
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  zero<<<(n + 63) / 64, 64>>>(x, n);
  printf("launching\n");
  scale<<<(n + 63) / 64 + 1, 64>>>(x, n, 2.0f);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    printf("error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  printf("no error\n");
  return 0;
}
