// nvcc's non-template atomic overloads: the value converts to the pointee's
// type (an int literal for unsigned, a double literal for float).
// expect: 64 640.0 -64 0 64 9
#include <cstdio>

__global__ void count(unsigned* u, float* f, int* s, unsigned* wrap, int* b, int* m) {
  atomicAdd(u, 1);
  atomicAdd(f, 10.0);
  atomicSub(s, 1);
  atomicInc(wrap, 15);
  atomicAdd_block(b, 1);
  atomicMax_system(m, (int)threadIdx.x % 10);
}

int main() {
  unsigned *u, *wrap;
  float* f;
  int *s, *b, *m;
  cudaMallocManaged(&u, sizeof(unsigned));
  cudaMallocManaged(&wrap, sizeof(unsigned));
  cudaMallocManaged(&f, sizeof(float));
  cudaMallocManaged(&s, sizeof(int));
  cudaMallocManaged(&b, sizeof(int));
  cudaMallocManaged(&m, sizeof(int));
  *u = *wrap = 0;
  *f = 0;
  *s = *b = *m = 0;
  count<<<2, 32>>>(u, f, s, wrap, b, m);
  cudaDeviceSynchronize();
  printf("%u %.1f %d %u %d %d\n", *u, *f, *s, *wrap, *b, *m);
  return 0;
}
