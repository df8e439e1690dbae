// A multi-kernel pipeline: generate -> smooth (shared-memory tile with halo)
// -> square -> block sums combined with atomicAdd. Race-free.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t err_ = (call);                                               \
    if (err_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                     \
              cudaGetErrorString(err_));                                     \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

constexpr int kBlock = 128;

__global__ void generate(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (float)(i % 17) - 8.0f;
}

__global__ void smooth(const float* in, float* out, int n) {
  __shared__ float tile[kBlock + 2];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int t = threadIdx.x + 1;
  tile[t] = i < n ? in[i] : 0.0f;
  if (threadIdx.x == 0) tile[0] = i > 0 && i - 1 < n ? in[i - 1] : 0.0f;
  if (threadIdx.x == blockDim.x - 1) tile[t + 1] = i + 1 < n ? in[i + 1] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = (tile[t - 1] + tile[t] + tile[t + 1]) / 3.0f;
}

__global__ void square(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * x[i];
}

__global__ void sum(const float* x, float* total, int n) {
  __shared__ float part[kBlock];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, part[0]);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int blocks = (n + kBlock - 1) / kBlock;
  float *a, *b, *total;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMalloc(&total, sizeof(float)));
  CHECK(cudaMemset(total, 0, sizeof(float)));
  generate<<<blocks, kBlock>>>(a, n);
  smooth<<<blocks, kBlock>>>(a, b, n);
  square<<<blocks, kBlock>>>(b, n);
  sum<<<blocks, kBlock>>>(b, total, n);
  CHECK(cudaGetLastError());
  float result = 0;
  CHECK(cudaMemcpy(&result, total, sizeof(float), cudaMemcpyDeviceToHost));

  double expect = 0;
  for (int i = 0; i < n; ++i) {
    double left = i > 0 ? (double)((i - 1) % 17) - 8 : 0;
    double mid = (double)(i % 17) - 8;
    double right = i + 1 < n ? (double)((i + 1) % 17) - 8 : 0;
    double s = (left + mid + right) / 3;
    expect += s * s;
  }
  printf("n=%d sum=%.1f\n", n, result);
  printf("check %s\n", fabs(result - expect) <= 1e-4 * expect ? "ok" : "MISMATCH");
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(total));
  return 0;
}
