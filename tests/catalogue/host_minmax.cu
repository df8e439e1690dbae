// max and min called from host code, as nvcc allows (its overloads are
// __host__ __device__), with equal and mixed argument types.
// expect: 7 2 4294967295 2.5 9
#include <cstdio>

__global__ void clamp(int* v, int n) {
  int i = threadIdx.x;
  if (i < n) v[i] = max(min(v[i], 9), 0);
}

int serial_code(int a, int b) { return max(a, b) + min(a, b) - a; }

int main() {
  unsigned mixed = max(-1, 3u);  // int and unsigned: unsigned, as in CUDA
  printf("%d %d %u %.1f ", serial_code(2, 7), min(2, 5), mixed, max(1.5f, 2.5f));
  int* v;
  cudaMallocManaged(&v, 4 * sizeof(int));
  v[0] = 12;
  clamp<<<1, 4>>>(v, 1);
  cudaDeviceSynchronize();
  printf("%d\n", v[0]);
  cudaFree(v);
  return 0;
}
