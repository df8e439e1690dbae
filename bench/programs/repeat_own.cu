// Each thread rereads and rewrites its own element many times in a loop, the
// shape of a kernel that accumulates into its own output (a multiply-add
// repeated in place). Every access after a thread's first finds its own word,
// at the site of its previous access.
// Usage: repeat_own ELEMENTS ROUNDS.
#include <vector>
#include "check.h"

__global__ void repeat(float* a, const float* b, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = 0; k < rounds; ++k) a[i] = a[i] * 0.5f + b[i];
}

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 64;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = (float)(i % 7);
  float *a, *b;
  CHECK(cudaMalloc(&a, sizeof(float) * n));
  CHECK(cudaMalloc(&b, sizeof(float) * n));
  CHECK(cudaMemset(a, 0, sizeof(float) * n));
  CHECK(cudaMemcpy(b, host.data(), sizeof(float) * n, cudaMemcpyHostToDevice));
  repeat<<<(n + 255) / 256, 256>>>(a, b, n, rounds);
  CHECK(cudaMemcpy(host.data(), a, sizeof(float) * n, cudaMemcpyDeviceToHost));
  CHECK(cudaGetLastError());
  double sum = 0;
  for (float x : host) sum += x;
  std::printf("repeat_own %d elements, %d rounds: sum %.1f\n", n, rounds, sum);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return 0;
}
