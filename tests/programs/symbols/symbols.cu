// __constant__ and __device__ variables: cudaMemcpyToSymbol (with an offset),
// cudaMemcpyFromSymbol, cudaGetSymbolAddress. `count` writes a __device__
// array from several threads per element: a write-write race.
#include <cstdio>
#include <cuda_runtime.h>

__constant__ float coeff[4];
__device__ int last_writer[8];
__device__ float table[64];

__global__ void polynomial(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = coeff[0] + x[i] * (coeff[1] + x[i] * (coeff[2] + x[i] * coeff[3]));
}

__global__ void fill_table() { table[threadIdx.x] = threadIdx.x * 0.5f; }

__global__ void count() { last_writer[threadIdx.x % 8] = threadIdx.x; }

int main() {
  const int n = 8;
  float low[2] = {1.0f, 2.0f}, high[2] = {0.5f, 0.25f};
  cudaMemcpyToSymbol(coeff, low, sizeof low);
  cudaMemcpyToSymbol(coeff, high, sizeof high, sizeof low);
  float hx[n], hy[n];
  for (int i = 0; i < n; ++i) hx[i] = (float)i;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
  polynomial<<<1, n>>>(x, y, n);
  cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost);
  printf("y:");
  for (int i = 0; i < n; ++i) printf(" %g", hy[i]);
  printf("\n");

  fill_table<<<1, 64>>>();
  float entry = 0;
  cudaMemcpyFromSymbol(&entry, table, sizeof entry, 10 * sizeof(float));
  float* table_address = nullptr;
  cudaGetSymbolAddress((void**)&table_address, table);
  float last = 0;
  cudaMemcpy(&last, table_address + 63, sizeof last, cudaMemcpyDeviceToHost);
  printf("table[10] %g table[63] %g\n", entry, last);

  count<<<1, 64>>>();
  int writers[8];
  cudaMemcpyFromSymbol(writers, last_writer, sizeof writers);
  printf("last writers:");
  for (int w : writers) printf(" %d", w);
  printf("\n");
  cudaError_t err = cudaMemcpyToSymbol(coeff, low, sizeof low, 3 * sizeof(float));
  printf("copy past the end: %s\n", cudaGetErrorName(err));
  cudaFree(x);
  cudaFree(y);
  return 0;
}
