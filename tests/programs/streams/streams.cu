// Streams, events, managed memory and dynamic shared memory (the launch's
// third <<<>>> argument). `rotate` stages a block's values in dynamic shared
// memory; `rotate_racy` forgets the barrier between the stores and the loads.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void rotate(const int* in, int* out) {
  extern __shared__ int buf[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = in[i];
  __syncthreads();
  out[i] = buf[(t + 1) % blockDim.x];
}

__global__ void rotate_racy(const int* in, int* out) {
  extern __shared__ int buf[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = in[i];
  out[i] = buf[(t + 1) % blockDim.x];
}

int main() {
  const int threads = 32, blocks = 4, n = threads * blocks;
  int *in, *a, *b;
  cudaMallocManaged(&in, n * sizeof(int));
  for (int i = 0; i < n; ++i) in[i] = 10 * i;
  cudaMalloc(&a, n * sizeof(int));
  cudaMalloc(&b, n * sizeof(int));
  cudaStream_t first, second;
  cudaStreamCreate(&first);
  cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);

  cudaEventRecord(start, first);
  rotate<<<blocks, threads, threads * sizeof(int), first>>>(in, a);
  rotate_racy<<<blocks, threads, threads * sizeof(int), second>>>(in, b);
  cudaEventRecord(stop, first);
  int *ha, *hb;
  cudaMallocHost(&ha, n * sizeof(int));
  cudaMallocHost(&hb, n * sizeof(int));
  cudaMemcpyAsync(ha, a, n * sizeof(int), cudaMemcpyDeviceToHost, first);
  cudaMemcpyAsync(hb, b, n * sizeof(int), cudaMemcpyDefault, second);
  cudaStreamSynchronize(first);
  cudaStreamSynchronize(second);
  cudaEventSynchronize(stop);
  float ms = -1;
  cudaError_t timing = cudaEventElapsedTime(&ms, start, stop);

  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    int next = (i / threads) * threads + (i + 1) % threads;
    wrong += ha[i] != 10 * next;
  }
  printf("rotate: %d wrong; a[0..3] = %d %d %d %d\n", wrong, ha[0], ha[1], ha[2], ha[3]);
  printf("timing: %s\n", timing == cudaSuccess && ms >= 0 ? "ok" : cudaGetErrorString(timing));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(first);
  cudaStreamDestroy(second);
  cudaFreeHost(ha);
  cudaFreeHost(hb);
  cudaFree(in);
  cudaFree(a);
  cudaFree(b);
  return 0;
}
