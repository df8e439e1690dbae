// Tiles of more than 32 threads (multi-warp tiles): cg::reduce, the scans,
// shfl, any and all over 64- and 128-thread tiles of a 256-thread block, with
// and without block_tile_memory. Each rank 0 writes its tile's results.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstdio>

namespace cg = cooperative_groups;

struct TileResult {
  int sum, last_scan, shuffled, any_hundred, all_positive, max128, rank32;
};

__global__ void tiles(TileResult* out) {
  __shared__ cg::block_tile_memory<256> scratch;
  cg::thread_block block = cg::this_thread_block(scratch);
  cg::thread_block_tile<64> t64 = cg::tiled_partition<64>(block);
  int v = threadIdx.x;
  int sum = cg::reduce(t64, v, cg::plus<int>());
  int scan = cg::inclusive_scan(t64, 1);
  int before = cg::exclusive_scan(t64, 2);
  int shuffled = t64.shfl(v, 5);
  int any_hundred = t64.any(v % 100 == 0);
  int all_positive = t64.all(v >= 0);
  t64.sync();
  auto t128 = cg::tiled_partition<128>(cg::this_thread_block());
  int max128 = cg::reduce(t128, v * 3 % 256, cg::greater<int>());
  auto t32 = cg::tiled_partition<32>(t64);
  if (t64.thread_rank() == 63) {
    TileResult r = {sum, scan, shuffled, any_hundred, all_positive, max128,
                    (int)t32.meta_group_rank() * 100 + before};
    out[t64.meta_group_rank()] = r;
  }
}

int main() {
  TileResult* out;
  cudaMallocManaged(&out, 4 * sizeof(TileResult));
  tiles<<<1, 256>>>(out);
  cudaDeviceSynchronize();
  for (int t = 0; t < 4; ++t)
    printf("tile %d: sum %d scan %d shfl %d any %d all %d max %d rank32 %d\n", t, out[t].sum,
           out[t].last_scan, out[t].shuffled, out[t].any_hundred, out[t].all_positive,
           out[t].max128, out[t].rank32);
  return 0;
}
