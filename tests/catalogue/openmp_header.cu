// gcc's <omp.h>, whose attributes clang rejects (nvcc hands it to g++).
// expect: 3
#include <omp.h>
#include <cstdio>

__global__ void three(int* p) { *p = 3; }

int main() {
  int* p;
  cudaMallocManaged(&p, sizeof(int));
  three<<<1, 1>>>(p);
  cudaDeviceSynchronize();
  printf("%d\n", *p);
  return 0;
}
