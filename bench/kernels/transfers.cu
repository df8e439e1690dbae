// A transfer-heavy program for bench/host_tracking.py: every step fills a
// pinned host buffer, copies it in, scales it on the device, copies it back
// and sums it on the host. Arguments: elements (default 65536), steps (50).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void scale(float* v, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= s;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 16;
  int steps = argc > 2 ? atoi(argv[2]) : 50;
  float *h, *d;
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMallocHost(&h, n * sizeof(float));
  cudaMalloc(&d, n * sizeof(float));
  double total = 0;
  for (int k = 0; k < steps; ++k) {
    for (int i = 0; i < n; ++i) h[i] = (float)(i % 7 + k);
    cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
    scale<<<(n + 255) / 256, 256, 0, s>>>(d, n, 0.5f);
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    for (int i = 0; i < n; ++i) total += h[i];
  }
  printf("total %.1f\n", total);
  cudaFree(d);
  cudaFreeHost(h);
  cudaStreamDestroy(s);
  return 0;
}
