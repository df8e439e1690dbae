// Transfer-heavy: each step copies a 4 MiB input in, runs a short kernel and
// copies the result out (pageable host memory, blocking copies). LOG2_N sets
// the arrays' length (bench/profile_large/big_stream.cu: out of cache).
#include <cstdio>
#include <cstdlib>

#ifndef LOG2_N
#define LOG2_N 20
#endif

__global__ void axpy(float* y, const float* x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += 64 * gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 20;
  const int n = 1 << LOG2_N;
  float* x = (float*)malloc(n * sizeof(float));
  float* y = (float*)malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i) x[i] = (float)(i % 97), y[i] = 1.0f;
  float *dx, *dy;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dy, n * sizeof(float));
  for (int s = 0; s < steps; ++s) {
    x[s] = (float)s;
    cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice);
    axpy<<<4, 64>>>(dy, dx, 0.5f, n);
    cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  }
  printf("%.1f\n", y[n - 1]);
  cudaFree(dx);
  cudaFree(dy);
  free(x);
  free(y);
  return 0;
}
