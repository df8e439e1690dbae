// CUB inside a kernel: a block-wide sum through its shared temporary storage,
// whose accesses happen in CUB's own (system) headers.
// warns: CUB (#include <cub/block/block_reduce.cuh>)
// refuses: CUB (#include <cub/block/block_reduce.cuh>)
#include <cub/block/block_reduce.cuh>

__global__ void block_sum(const int* in, int* out) {
  using Reduce = cub::BlockReduce<int, 128>;
  __shared__ typename Reduce::TempStorage scratch;
  int total = Reduce(scratch).Sum(in[blockIdx.x * 128 + threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
