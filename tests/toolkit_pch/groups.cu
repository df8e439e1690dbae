// Cooperative groups included directly by the unit (tests/test_toolkit_pch.py).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void shift(int* data) {
  cg::thread_block block = cg::this_thread_block();
  int v = data[block.thread_rank()];
  block.sync();
  data[(block.thread_rank() + 1) % block.size()] = v;
}

int main() {
  int* data;
  cudaMalloc(&data, 32 * sizeof(int));
  shift<<<1, 32>>>(data);
  cudaDeviceSynchronize();
  return 0;
}
