// Sum of 1..n by a shared-memory tree reduction per block, the block sums
// combined with atomicAdd. Built as is, it forgets the __syncthreads()
// between filling the shared array and the first step of the tree: a thread
// reads sdata[tid + s] that another thread may not have written yet. With
// -DFIXED the barrier is there.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

constexpr int kBlock = 256;

__global__ void block_sum(const int* in, int* out, int n) {
  __shared__ int sdata[kBlock];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0;
#ifdef FIXED
  __syncthreads();
#endif
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(out, sdata[0]);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int* h = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) h[i] = i + 1;
  int *in, *out;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, sizeof(int));
  cudaMemcpy(in, h, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(out, 0, sizeof(int));
  block_sum<<<(n + kBlock - 1) / kBlock, kBlock>>>(in, out, n);
  int total = 0;
  cudaError_t err = cudaMemcpy(&total, out, sizeof(int), cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    printf("error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  long long expect = (long long)n * (n + 1) / 2;
  printf("sum %d, expected %lld: %s\n", total, expect, total == expect ? "ok" : "wrong");
  cudaFree(in);
  cudaFree(out);
  free(h);
  return 0;
}
