// Kernels and a device function defined in a header: instrumented through
// the rewritten copy hirace makes of this file.
#pragma once

__device__ inline int twice(const int* v, int i) { return 2 * v[i]; }

// Every thread adds into out[0] without an atomic: a race.
__global__ void sum_racy(const int* v, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[0] += twice(v, i);
}

// A block-wide reversal through dynamic shared memory, correctly synchronised.
__global__ void reverse_block(int* v) {
  extern __shared__ int tile[];
  int t = threadIdx.x;
  tile[t] = v[blockIdx.x * blockDim.x + t];
  __syncthreads();
  v[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t];
}
