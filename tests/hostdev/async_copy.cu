// A result copied back asynchronously into pinned memory.
// BUG_NO_WAIT: the host reads it without waiting for the stream.
#include <cstdio>
#include <cuda_runtime.h>

#define N 256

__global__ void square(int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = i * i;
}

int main() {
  int *h_v, *d_v;
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMallocHost(&h_v, N * sizeof(int));
  cudaMalloc(&d_v, N * sizeof(int));
  square<<<N / 64, 64, 0, s>>>(d_v, N);
  cudaMemcpyAsync(h_v, d_v, N * sizeof(int), cudaMemcpyDeviceToHost, s);
#ifndef BUG_NO_WAIT
  cudaStreamSynchronize(s);
#endif
  long sum = 0;
  for (int i = 0; i < N; ++i) sum += h_v[i];
  printf("sum: %ld\n", sum);
  cudaFree(d_v);
  cudaFreeHost(h_v);
  cudaStreamDestroy(s);
  return 0;
}
