// Launches that name their kernel in ways nvcc accepts and a plain
// `kernel<<<...>>>` does not show: an element of an array of kernel
// pointers, a template kernel launched inside a template with its template
// arguments deduced, and a kernel with a reference parameter. Each launch is
// checked as the kernel it runs. With an argument, the template kernel has
// every thread write one element.
#include <cstdio>
#include <cstdlib>

struct Counter {
  int value;
};

__global__ void twice(int* a) { a[threadIdx.x] *= 2; }
__global__ void thrice(int* a) { a[threadIdx.x] *= 3; }

template <typename T>
__global__ void add(T* a, T s, int racy) {
  a[racy ? 0 : threadIdx.x] += s;
}

__global__ void bump(Counter& c) { c.value += 1; }

template <typename T>
void add_one(T* d, int racy) {
  add<<<1, 4>>>(d, T(1), racy);
}

int main(int argc, char** argv) {
  int racy = argc > 1;
  void (*scale[2])(int*) = {twice, thrice};
  int* d;
  Counter* c;
  cudaMallocManaged(&d, 4 * sizeof(int));
  cudaMallocManaged(&c, sizeof(Counter));
  for (int i = 0; i < 4; i++) d[i] = i;
  c->value = 41;
  for (int j = 0; j < 2; j++) scale[j]<<<1, 4>>>(d);
  add_one(d, racy);
  bump<<<1, 1>>>(*c);
  cudaDeviceSynchronize();
  if (!racy) printf("%d %d %d %d %d\n", d[0], d[1], d[2], d[3], c->value);
  cudaFree(d);
  cudaFree(c);
  return 0;
}
