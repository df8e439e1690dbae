// Tiles of a block: a per-tile sum through shared memory and tile syncs,
// then the same sum with cg::reduce and with shuffles (also of a 16-byte
// value), and tile votes.
// Argument "across": each tile's leader also reads the next tile's slot, which
// only a block barrier would order (a race with that tile's store).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cstring>

namespace cg = cooperative_groups;

constexpr int kBlock = 128;

__global__ void tile_sums(const int *in, int *sums, int *checks, int across)
{
    __shared__ int slot[kBlock];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = block.group_index().x * block.size() + block.thread_rank();
    int v = in[i];
    slot[block.thread_rank()] = v;
    tile.sync();
    if (tile.thread_rank() == 0) {
        int s = 0;
        for (int k = 0; k < 32; ++k) s += slot[block.thread_rank() + k];
        if (across) s += slot[(block.thread_rank() + 32) % kBlock];
        sums[block.group_index().x * 4 + tile.meta_group_rank()] = s;
    }
    int r = cg::reduce(tile, v, cg::plus<int>());
    int d = v;
    for (int o = 16; o > 0; o /= 2) d += tile.shfl_down(d, o);
    cg::thread_block_tile<8> eighth = cg::tiled_partition<8>(tile);
    int m = cg::reduce(eighth, v, cg::greater<int>());
    unsigned odd = tile.ballot(v & 1);
    int first = tile.shfl(d, 0), all = tile.all(v >= 0), any = tile.any(v < 0);
    uint4 wide = tile.shfl_xor(make_uint4(v, v + 1, v + 2, v + 3), 1);
    if (tile.thread_rank() == 0)
        checks[block.group_index().x * 4 + tile.meta_group_rank()] =
            (r == first) + 2 * (tile.meta_group_size() == 4) + 4 * (m >= v) +
            8 * (__builtin_popcount(odd) == 16) + 16 * all + 32 * !any +
            64 * (wide.w == unsigned((v ^ 1) + 3));
}

int main(int argc, char **argv)
{
    const int blocks = 2, n = blocks * kBlock;
    int across = argc > 1 && strcmp(argv[1], "across") == 0;
    int h[n], *in, *sums, *checks;
    for (int i = 0; i < n; ++i) h[i] = i;
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&sums, blocks * 4 * sizeof(int));
    cudaMalloc(&checks, blocks * 4 * sizeof(int));
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    tile_sums<<<blocks, kBlock>>>(in, sums, checks, across);
    int s[blocks * 4], c[blocks * 4];
    cudaMemcpy(s, sums, sizeof s, cudaMemcpyDeviceToHost);
    cudaMemcpy(c, checks, sizeof c, cudaMemcpyDeviceToHost);
    for (int t = 0; t < blocks * 4; ++t) printf("tile %d: sum %d, checks %d\n", t, s[t], c[t]);
    return 0;
}
