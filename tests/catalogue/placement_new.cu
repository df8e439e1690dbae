// Placement new in device code without <new>: nvcc declares it built in.
// expect: 7 5
#include <cstdio>

struct Pair {
  int a, b;
  __device__ Pair(int x, int y) : a(x), b(y) {}
};

__global__ void build(int* out) {
  __shared__ unsigned char buffer[sizeof(Pair)];
  if (threadIdx.x == 0) {
    Pair* p = new (buffer) Pair(7, 5);
    out[0] = p->a;
    out[1] = p->b;
  }
}

int main() {
  int* out;
  cudaMallocManaged(&out, 2 * sizeof(int));
  build<<<1, 32>>>(out);
  cudaDeviceSynchronize();
  printf("%d %d\n", out[0], out[1]);
  return 0;
}
