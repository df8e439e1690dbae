// 16-lane tiles: each tile halves a sum through shared memory, its syncs
// called through a generic thread_group (so only the runtime's lane groups
// of 16 make them exact), then an 8-lane-style broadcast within the tile.
// Argument "nosync": the sync between the store and the partner's read is
// skipped, a race between lanes of one tile.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstring>

namespace cg = cooperative_groups;

constexpr int kBlock = 64;

__device__ int halve(cg::thread_group g, int *x, int v, bool sync)
{
    int r = g.thread_rank();
    for (int i = g.size() / 2; i > 0; i /= 2) {
        x[r] = v;
        if (sync) g.sync();
        if (r < i) v += x[r + i];
        g.sync();
    }
    return v;
}

__global__ void tile_sums(int *out, int nosync)
{
    __shared__ int work[kBlock];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    int base = block.thread_rank() - tile.thread_rank();
    int s = halve(tile, work + base, tile.thread_rank() + 1, !nosync);
    if (tile.thread_rank() == 0) work[base] = s;
    tile.sync();
    out[blockIdx.x * kBlock + block.thread_rank()] = work[base];
}

int main(int argc, char **argv)
{
    const int blocks = 2, n = blocks * kBlock;
    int nosync = argc > 1 && strcmp(argv[1], "nosync") == 0;
    int *out, h[n];
    cudaMalloc(&out, sizeof h);
    tile_sums<<<blocks, kBlock>>>(out, nosync);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += h[i] != 136;
    printf("%d of %d tile sums are 136\n", n - bad, n);
    cudaFree(out);
    return 0;
}
