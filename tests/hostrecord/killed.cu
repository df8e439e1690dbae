// Uploads three buffers, then is killed before it can exit: its host
// record must still hold the three copies (tests/test_host_record_file.py).
#include <csignal>
#include <cstdio>
#include <cuda_runtime.h>

int main() {
  static float h[3][64];
  float* d;
  cudaMalloc(&d, sizeof h);
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < 64; ++i) h[k][i] = k * 64 + i;
    cudaMemcpy(d + k * 64, h[k], sizeof h[k], cudaMemcpyHostToDevice);
  }
  std::fflush(stdout);
  std::raise(SIGKILL);
  return 0;
}
