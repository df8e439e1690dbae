// Kernels launched through function-pointer variables: chosen from a table
// by the command line, and passed to a helper that launches them. Each
// launch is checked as the kernel the pointer holds at that moment.
#include <cstdio>
#include <cstdlib>

namespace ops {
__global__ void twice(int* a, int n) {
  if (threadIdx.x < n) a[threadIdx.x] *= 2;
}
}  // namespace ops

__global__ void last_writer(int* a, int n) {
  a[n - 1] = threadIdx.x;
}

typedef void (*Kernel)(int*, int);

static void run(Kernel kernel, int* a, int n) {
  kernel<<<1, 32>>>(a, n);
}

int main(int argc, char** argv) {
  const Kernel table[] = {&ops::twice, last_writer};
  int choice = argc > 1 ? atoi(argv[1]) : 0;
  int* a;
  cudaMallocManaged(&a, 32 * sizeof(int));
  for (int i = 0; i < 32; ++i) a[i] = i;
  Kernel kernel = table[0];
  for (int r = 0; r < 2; ++r) kernel<<<1, 32>>>(a, 32);
  run(table[choice], a, 32);
  cudaDeviceSynchronize();
  printf("%d\n", choice ? 0 : a[31]);
  cudaFree(a);
  return 0;
}
