// Out of cache: stream_loop with 64 MiB arrays (256 MiB in all, more than the
// last-level cache of the machines measured). Each step copies two inputs in,
// runs a short kernel and copies the result out (pageable host memory,
// blocking copies). bench/profile_chunk.py measures the hashing chunk on it.
#include <cstdio>
#include <cstdlib>

__global__ void axpy(float* y, const float* x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += 64 * gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 20;
  const int n = 1 << 24;
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
