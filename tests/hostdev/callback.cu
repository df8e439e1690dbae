// A host function on a stream totals the result the stream's copy brought
// back into pinned memory, and leaves the total in its first element.
// BUG_NO_SYNC: the host reads the total without waiting for the stream.
#include <cstdio>
#include <cuda_runtime.h>

#define N 64

struct Job {
  int* h;
};

__global__ void iota(int* v, int n) {
  int i = threadIdx.x;
  if (i < n) v[i] = i;
}

void total(void* p) {
  Job* job = static_cast<Job*>(p);
  int sum = 0;
  for (int i = 0; i < N; ++i) sum += job->h[i];
  job->h[0] = sum;
}

int main() {
  Job job;
  int* d;
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMallocHost(&job.h, N * sizeof(int));
  cudaMalloc(&d, N * sizeof(int));
  iota<<<1, N, 0, s>>>(d, N);
  cudaMemcpyAsync(job.h, d, N * sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaLaunchHostFunc(s, total, &job);
#ifndef BUG_NO_SYNC
  cudaStreamSynchronize(s);
#endif
  printf("total: %d\n", job.h[0]);
  cudaFree(d);
  cudaFreeHost(job.h);
  cudaStreamDestroy(s);
  return 0;
}
