// A comment in Latin-1, not UTF-8: José wrote this kernel (the byte 0xe9).
// expect: 64
#include <cstdio>

__global__ void count(int* n) { atomicAdd(n, 1); }  // café

int main() {
  int* n;
  cudaMallocManaged(&n, sizeof(int));
  *n = 0;
  count<<<2, 32>>>(n);
  cudaDeviceSynchronize();
  printf("%d\n", *n);
  return 0;
}
