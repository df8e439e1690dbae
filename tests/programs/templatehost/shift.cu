// Allocation, memset and launch in a host function template, as the
// developer-blog coalescing sample writes them: `cudaMalloc(&d, ...)` with
// `T* d` is a call libclang cannot resolve before instantiation. The memory
// must be registered all the same (not unmonitored), at the element's
// granularity, so the shift's race is found for both types.
#include <cstdio>

template <typename T>
__global__ void shift(T* a, int n) {
  int i = threadIdx.x;
  if (i + 1 < n) a[i] = a[i + 1];
}

template <typename T>
T run(int n) {
  T* d;
  T h;
  cudaMalloc(&d, n * sizeof(T));
  cudaMemset(d, 0, n * sizeof(T));
  shift<<<1, n>>>(d, n);
  cudaMemcpy(&h, d, sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return h;
}

int main() {
  float f = run<float>(64);
  double g = run<double>(64);
  printf("%g %g\n", f, g);
  return 0;
}
