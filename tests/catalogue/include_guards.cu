// A user header whose helpers hide behind nvcc's include guards
// (__CUDA_RUNTIME_H__, __DRIVER_TYPES_H__).
// expect: 42
#include <cuda_runtime.h>
#include "guards.h"

__global__ void answer(int* v) { *v = 42; }

int main() {
  int* v;
  CHECK(cudaMallocManaged(&v, sizeof(int)));
  answer<<<1, 1>>>(v);
  CHECK(cudaDeviceSynchronize());
  std::printf("%d\n", *v);
  CHECK(cudaFree(v));
  return 0;
}
