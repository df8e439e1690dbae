// Kernels from a header, from an included .cu and a launch from a header;
// a template kernel launched with its template argument deduced.
#include <cstdio>
#include <cuda_runtime.h>
#include "launch.cuh"
#include "scale_kernel.cu"

int main() {
  const int n = 64;
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = i;
  int *v, *out;
  cudaMalloc(&v, n * sizeof(int));
  cudaMalloc(&out, sizeof(int));
  cudaMemcpy(v, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, sizeof(int));
  scale << < 2, 32 >> > (v, 3, n);
  reverse_blocks(v, 2, 32);
  sum_racy<<<1, 64>>>(v, out, n);
  shift<<<2, 32>>>(v, 1, n);  // T deduced from the arguments
  int total = 0;
  cudaMemcpy(&total, out, sizeof total, cudaMemcpyDeviceToHost);
  cudaMemcpy(host, v, sizeof host, cudaMemcpyDeviceToHost);
  printf("%d %d %d\n", host[0], host[31], host[32]);
  cudaFree(v);
  cudaFree(out);
  return 0;
}
