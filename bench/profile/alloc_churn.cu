// Allocation-heavy: temporary device buffers of several sizes allocated,
// cleared, filled, used and freed on every step.
#include <cstdio>
#include <cstdlib>

__global__ void sum_into(double* acc, const double* t, int n) {
  double s = 0;
  for (int i = threadIdx.x; i < n; i += 64 * blockDim.x) s += t[i];
  acc[threadIdx.x] += s;
}

int main(int argc, char** argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 20;
  const int big = 1 << 18;
  double* h = (double*)malloc(big * sizeof(double));
  for (int i = 0; i < big; ++i) h[i] = 1.0 / (1 + i);
  double* acc;
  cudaMalloc(&acc, 64 * sizeof(double));
  cudaMemset(acc, 0, 64 * sizeof(double));
  for (int s = 0; s < steps * 4; ++s) {
    int n = big >> (s % 4);
    double* t;
    cudaMalloc(&t, n * sizeof(double));
    cudaMemset(t, 0, n * sizeof(double));
    cudaMemcpy(t, h, n * sizeof(double), cudaMemcpyHostToDevice);
    sum_into<<<1, 64>>>(acc, t, n);
    cudaFree(t);
  }
  double r[64];
  cudaMemcpy(r, acc, sizeof r, cudaMemcpyDeviceToHost);
  printf("%.4f\n", r[0]);
  cudaFree(acc);
  free(h);
  return 0;
}
