// Kernels for comparing hirace's two race engines (docs/engines.md) on one
// whole program: races each engine finds, and races only the FSM engine finds
// for a known reason. The program prints only what no race decides.
#include <cstdio>

__device__ int total;

// Race-free: a block reverses its part of `a` through shared memory.
__global__ void reverse(float* a, int n) {
  __shared__ float tile[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? a[i] : 0.0f;
  __syncthreads();
  if (i < n) a[i] = tile[blockDim.x - 1 - threadIdx.x] * 2.0f;
}

// Warp 0 reads what warp 1 writes, with no barrier: both engines.
__global__ void shift(int* b) {
  int t = threadIdx.x;
  b[t] = t;
  int v = b[(t + 32) % 64];
  b[t + 64] = v;
}

// Lanes 0 and 1 of warp 0 write one element: the FSM engine only (same-warp).
__global__ void lanes(int* c) {
  if (threadIdx.x < 2) c[0] = threadIdx.x + 5;
}

// A plain read of an atomic counter: the FSM engine only (atomics).
__global__ void count(int* c) {
  if (threadIdx.x == 40) c[1] = total;
  else atomicAdd(&total, 1);
}

// Two blocks write one element: both engines.
__global__ void blocks(int* d) {
  if (threadIdx.x == 0) d[0] = blockIdx.x + 1;
}

// Lane 0 of each warp writes the value the element holds: the FSM engine
// only (value coincidence: nothing changed).
__global__ void same(int* e) {
  if (threadIdx.x % 32 == 0) e[0] = 7;
}

int main() {
  const int n = 128;
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = (float)i;
  float* a;
  int* x;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&x, 256 * sizeof(int));
  cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
  reverse<<<2, 64>>>(a, n);
  cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost);
  float sum = 0;
  for (int i = 0; i < n; ++i) sum += h[i];
  printf("reverse: a[0] %g a[64] %g sum %g\n", h[0], h[64], sum);
  cudaMemset(x, 0xff, 256 * sizeof(int));
  shift<<<1, 64>>>(x);
  lanes<<<1, 64>>>(x + 128);
  count<<<1, 64>>>(x + 128);
  blocks<<<2, 32>>>(x + 192);
  int seven = 7;
  cudaMemcpy(x + 200, &seven, sizeof seven, cudaMemcpyHostToDevice);
  same<<<1, 64>>>(x + 200);
  int t = 0;
  cudaMemcpyFromSymbol(&t, total, sizeof t);
  int e = 0;
  cudaMemcpy(&e, x + 200, sizeof e, cudaMemcpyDeviceToHost);
  printf("count: total %d; same: %d\n", t, e);
  cudaFree(a);
  cudaFree(x);
  return 0;
}
