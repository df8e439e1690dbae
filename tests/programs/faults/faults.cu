// Kernels that fail, chosen by the first argument. A failed launch leaves a
// sticky error: the next synchronisation and every later call return it, as
// on a GPU, and the program's own error handling decides what to do.
#include <cassert>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void diverge(int* out) {
  if (threadIdx.x < 16) __syncthreads();
  out[threadIdx.x] = 1;
}

__global__ void trap(int* out) {
  out[threadIdx.x] = 2;
  if (threadIdx.x == 5) __trap();
}

__global__ void spin(volatile int* flag) {
  while (flag[0] == 0) {
  }
}

__global__ void check(const int* in) { assert(in[threadIdx.x] == 0); }

// Every thread writes out[0] (a race), then the launch fails: the race
// found before the failure is still reported.
__global__ void race_then_trap(int* out) {
  out[0] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 5) __trap();
}

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "";
  int* d;
  cudaMalloc(&d, 32 * sizeof(int));
  cudaMemset(d, 0, 32 * sizeof(int));
  if (strcmp(what, "diverge") == 0) diverge<<<1, 32>>>(d);
  if (strcmp(what, "trap") == 0) trap<<<1, 32>>>(d);
  if (strcmp(what, "spin") == 0) spin<<<1, 1>>>(d);
  if (strcmp(what, "race_then_trap") == 0) race_then_trap<<<1, 32>>>(d);
  if (strcmp(what, "assert") == 0) {
    cudaMemset(d + 7, 1, 1);
    check<<<1, 32>>>(d);
  }
  cudaError_t sync = cudaDeviceSynchronize();
  int h = 0;
  cudaError_t copy = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%s: synchronize %s, copy %s\n", what, cudaGetErrorName(sync), cudaGetErrorName(copy));
  return sync == cudaSuccess ? 0 : 2;
}
