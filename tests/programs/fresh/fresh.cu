// One kernel launched in a loop. In each launch every element has one owner
// thread, so each launch is race-free; from one launch to the next the owner
// of an element changes. Shadow memory starts fresh for every launch (kernel
// boundaries order everything), so nothing may be reported.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void step(unsigned* buf, int n, int round) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    int j = (t + round) % n;
    buf[j] = buf[j] * 3u + (unsigned)t;
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  int rounds = argc > 2 ? atoi(argv[2]) : 10;
  unsigned* buf;
  cudaMalloc(&buf, n * sizeof(unsigned));
  cudaMemset(buf, 0, n * sizeof(unsigned));
  for (int r = 0; r < rounds; ++r) step<<<(n + 31) / 32, 32>>>(buf, n, r);
  unsigned* h = (unsigned*)malloc(n * sizeof(unsigned));
  cudaMemcpy(h, buf, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  unsigned long long checksum = 0;
  for (int i = 0; i < n; ++i) checksum = checksum * 31 + h[i];
  printf("%d rounds over %d elements: checksum %llu\n", rounds, n, checksum);
  free(h);
  cudaFree(buf);
  return 0;
}
