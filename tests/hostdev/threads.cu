// Two host threads each fill their half of one buffer on a stream of their
// own and copy it back into pinned memory (with memsets, not kernels: the
// runtime does not yet keep apart the launches of several host threads); the main thread joins them and
// sums the result. The joins order the workers' work before the sum.
// BUG_NO_SYNC: a worker does not wait for its stream before it ends, so the
// join orders its calls, not the copy they started.
#include <cstdio>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

#define N 256
#define HALF (N / 2)

void worker(int* d, int* h, int part) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaMemsetAsync(d + part * HALF, part + 1, HALF * sizeof(int), s);
  cudaMemcpyAsync(h + part * HALF, d + part * HALF, HALF * sizeof(int), cudaMemcpyDeviceToHost, s);
#ifndef BUG_NO_SYNC
  cudaStreamSynchronize(s);
#endif
  cudaStreamDestroy(s);
}

int main() {
  int *d, *h;
  cudaMalloc(&d, N * sizeof(int));
  cudaMallocHost(&h, N * sizeof(int));
  std::thread first(worker, d, h, 0);
  std::vector<std::thread> others;
  others.emplace_back(worker, d, h, 1);
  first.join();
  for (std::thread& t : others) t.join();
  long sum = 0;
  for (int i = 0; i < N; ++i) sum += h[i];
  printf("sum: %ld\n", sum);
  cudaFreeHost(h);
  cudaFree(d);
  return 0;
}
