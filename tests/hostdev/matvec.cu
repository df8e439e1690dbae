// y = A x + y on the device, twice (x changes in between).
// Variants (-D): BUG_MISSING_COPY (x never copied in), BUG_PARTIAL_COPY (only
// half of x), BUG_OUTDATED (x changed on the host but not copied again),
// BUG_NO_COPY_BACK (y read on the host without copying it back).
#include <cstdio>
#include <cuda_runtime.h>

#define N 64

__global__ void matvec(const float* a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float sum = 0;
    for (int j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = y[i] + sum;
  }
}

int main() {
  static float h_a[N * N], h_x[N], h_y[N];
  for (int i = 0; i < N * N; ++i) h_a[i] = (i % N == i / N) ? 1.0f : 0.0f;
  for (int i = 0; i < N; ++i) h_x[i] = 1.0f, h_y[i] = 0.0f;
  float *d_a, *d_x, *d_y;
  cudaMalloc(&d_a, sizeof(h_a));
  cudaMalloc(&d_x, sizeof(h_x));
  cudaMalloc(&d_y, sizeof(h_y));
  cudaMemcpy(d_a, h_a, sizeof(h_a), cudaMemcpyHostToDevice);
#if defined(BUG_PARTIAL_COPY)
  cudaMemcpy(d_x, h_x, sizeof(h_x) / 2, cudaMemcpyHostToDevice);
#elif !defined(BUG_MISSING_COPY)
  cudaMemcpy(d_x, h_x, sizeof(h_x), cudaMemcpyHostToDevice);
#endif
  cudaMemcpy(d_y, h_y, sizeof(h_y), cudaMemcpyHostToDevice);
  matvec<<<2, 32>>>(d_a, d_x, d_y, N);
  for (int i = 0; i < N; ++i) h_x[i] = 2.0f;
#ifndef BUG_OUTDATED
  cudaMemcpy(d_x, h_x, sizeof(h_x), cudaMemcpyHostToDevice);
#endif
  matvec<<<2, 32>>>(d_a, d_x, d_y, N);
#ifndef BUG_NO_COPY_BACK
  cudaMemcpy(h_y, d_y, sizeof(h_y), cudaMemcpyDeviceToHost);
#endif
  float total = 0;
  for (int i = 0; i < N; ++i) total += h_y[i];
  printf("sum of y: %g\n", total);
  cudaFree(d_a);
  cudaFree(d_x);
  cudaFree(d_y);
  return 0;
}
