// One launch writes every other element of an array nothing initialised:
// `m` (argv[1]) elements, so `m` runs of written units, then the whole array is
// copied back, which reads the `m` gaps nobody wrote. Past the footprint's
// limit on runs the launch's footprint becomes one range that may have been
// read or written (tests/test_footprint_scan.py).
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void every_other(int* data, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) data[2 * i] = i;
}

int main(int argc, char** argv) {
  const int m = argc > 1 ? std::atoi(argv[1]) : 4;
  int* data;
  cudaMalloc(&data, 2 * m * sizeof(int));
  every_other<<<(m + 127) / 128, 128>>>(data, m);
  std::vector<int> back(2 * m);
  cudaMemcpy(back.data(), data, 2 * m * sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("%d\n", back[2 * (m - 1)]);
  cudaFree(data);
  return 0;
}
