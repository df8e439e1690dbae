// Scratch space allocated per call.
// BUG_LEAK: it is never freed.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void iota(int* v) { v[threadIdx.x] = threadIdx.x; }

int last(int n) {
  int* scratch;
  int out = 0;
  cudaMalloc(&scratch, n * sizeof(int));
  iota<<<1, n>>>(scratch);
  cudaMemcpy(&out, scratch + n - 1, sizeof(int), cudaMemcpyDeviceToHost);
#ifndef BUG_LEAK
  cudaFree(scratch);
#endif
  return out;
}

int main() {
  printf("last: %d\n", last(32));
  return 0;
}
