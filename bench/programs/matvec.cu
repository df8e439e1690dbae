// Repeated matrix-vector product y = A x over a large dense matrix, one thread
// per row, as in a power iteration: the vector is normalised on the device
// between products. Usage: matvec ROWS ITERATIONS (the matrix is square).
#include <cmath>
#include <vector>
#include "check.h"

__global__ void fill(float* a, int n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (long long)n * n) a[i] = (float)((i * 2654435761ll) % 1000) / (500.0f * n);
}

__global__ void matvec(const float* a, const float* x, float* y, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  const float* r = a + (long long)row * n;
  float acc = 0.0f;
  for (int c = 0; c < n; ++c) acc += r[c] * x[c];
  y[row] = acc;
}

// Sum of squares of y, one block: a shared-memory tree reduction.
__global__ void norm2(const float* y, float* out, int n) {
  __shared__ float s[256];
  float acc = 0.0f;
  for (int i = threadIdx.x; i < n; i += 256) acc += y[i] * y[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = 128; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = sqrtf(s[0]);
}

__global__ void scale(const float* y, const float* norm, float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = y[i] / *norm;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  int iterations = argc > 2 ? std::atoi(argv[2]) : 3;
  float *a, *x, *y, *norm;
  CHECK(cudaMalloc(&a, sizeof(float) * n * n));
  CHECK(cudaMalloc(&x, sizeof(float) * n));
  CHECK(cudaMalloc(&y, sizeof(float) * n));
  CHECK(cudaMalloc(&norm, sizeof(float)));
  std::vector<float> ones(n, 1.0f);
  CHECK(cudaMemcpy(x, ones.data(), sizeof(float) * n, cudaMemcpyHostToDevice));
  long long cells = (long long)n * n;
  fill<<<(unsigned)((cells + 255) / 256), 256>>>(a, n);
  int blocks = (n + 255) / 256;
  for (int it = 0; it < iterations; ++it) {
    matvec<<<blocks, 256>>>(a, x, y, n);
    norm2<<<1, 256>>>(y, norm, n);
    scale<<<blocks, 256>>>(y, norm, x, n);
  }
  float result;
  CHECK(cudaMemcpy(&result, norm, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaGetLastError());
  std::printf("matvec %d x %d, %d iterations, norm %.4f\n", n, n, iterations, result);
  CHECK(cudaFree(a));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFree(norm));
  return 0;
}
