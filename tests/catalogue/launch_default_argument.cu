// A kernel with default arguments launched with fewer arguments: the CPU
// backend calls kernels through a pointer, which has no default arguments.
// expect: 6 192 2 7
#include <cstdio>

#define NO_EXTRA NULL

__global__ void scale(int* data, int factor, int* extra = NO_EXTRA, int offset = 3 + 4) {
  data[threadIdx.x] *= factor;
  if (extra != NULL && threadIdx.x == 0) {
    extra[0] = data[0];
    extra[1] = offset;
  }
}

int main() {
  int *d, *e;
  cudaMallocManaged(&d, 32 * sizeof(int));
  cudaMallocManaged(&e, 2 * sizeof(int));
  for (int i = 0; i < 32; ++i) d[i] = i + 1;
  scale<<<1, 32>>>(d, 2, e);
  scale<<<1, 32>>>(d, 3);
  cudaDeviceSynchronize();
  printf("%d %d %d %d\n", d[0], d[31], e[0], e[1]);
  return 0;
}
