// The kernels; main.cu launches them.
#include "common.cuh"

__global__ void fill(int* data, int n, int seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = scramble(i, seed);
}

__global__ void histogram_atomic(const int* data, int* hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[bin_of(data[i])], 1);
}

// Increments without an atomic: threads that land in one bin race.
__global__ void histogram_racy(const int* data, int* hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) hist[bin_of(data[i])]++;
}
