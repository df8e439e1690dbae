// Two host threads launching kernels at the same time, each on its own
// buffer and stream: each launch's footprint must stay its own (hirace makes
// launches from several threads one at a time).
// BUG_SHARED: both threads' kernels update one buffer, on unordered streams.
#include <cstdio>
#include <thread>

__global__ void bump(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1;
}

void work(int* d, int n, int rounds) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (int r = 0; r < rounds; ++r) bump<<<(n + 127) / 128, 128, 0, s>>>(d, n);
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
}

int main() {
  const int n = 4096, rounds = 40;
  int *a, *b;
  cudaMalloc(&a, n * sizeof(int));
  cudaMalloc(&b, n * sizeof(int));
  cudaMemset(a, 0, n * sizeof(int));
  cudaMemset(b, 0, n * sizeof(int));
  std::thread t1(work, a, n, rounds);
#ifdef BUG_SHARED
  std::thread t2(work, a, n, rounds);
#else
  std::thread t2(work, b, n, rounds);
#endif
  t1.join();
  t2.join();
  int ha = 0, hb = 0;
  cudaMemcpy(&ha, a + n - 1, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&hb, b + n - 1, sizeof(int), cudaMemcpyDeviceToHost);
  printf("%d\n", ha + hb > 0);
  cudaFree(a);
  cudaFree(b);
  return 0;
}
