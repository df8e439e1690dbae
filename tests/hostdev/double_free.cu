// A buffer released on two paths.
// BUG_DOUBLE_FREE: both paths run.
#include <cstdio>
#include <cuda_runtime.h>

int main() {
  float* d;
  cudaMalloc(&d, 256);
  cudaMemset(d, 0, 256);
  cudaFree(d);
#ifdef BUG_DOUBLE_FREE
  cudaFree(d);
#endif
  printf("done\n");
  return 0;
}
