// Cooperative-groups syncs (docs/semantics.md 1.3) through tests/sync_kernels/cg_mini.h.
#include "cg_mini.h"

namespace cg = cooperative_groups;

// Each thread writes s[t], the block syncs, each reads its mirror: race-free.
__global__ void block_sync(int *out)
{
    __shared__ int s[64];
    cg::thread_block block = cg::this_thread_block();
    unsigned t = block.thread_rank();
    s[t] = (int)t;
    block.sync();
    out[t] = s[63 - t];
}

// The same with cg::sync(block) and no sync at all: race-free, then racy.
__global__ void free_sync(int *out, int synced)
{
    __shared__ int s[64];
    cg::thread_block block = cg::this_thread_block();
    unsigned t = block.thread_rank();
    s[t] = (int)t;
    if (synced)
        cg::sync(block);
    out[t] = s[63 - t];
}

// A 32-thread tile is the whole warp: exchange within it is race-free; reading
// the other warp's element after only a tile sync races.
__global__ void warp_tile(int *out, int across)
{
    __shared__ int s[64];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    unsigned t = block.thread_rank();
    s[t] = (int)t;
    tile.sync();
    unsigned other = across ? (t + 32) % 64 : (t / 32) * 32 + 31 - tile.thread_rank();
    out[t] = s[other];
}

// 16-thread tiles: reading another tile's element after a tile sync races.
__global__ void tile16_across(int *out)
{
    __shared__ int s[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    unsigned t = block.thread_rank();
    s[t] = (int)t;
    tile.sync();
    out[t] = s[(t + 16) % 32];
}

// A grid sync between a write and a read of another block's element.
__global__ void grid_phases(int *a, int *out)
{
    cg::grid_group grid = cg::this_grid();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = (int)i;
    grid.sync();
    out[i] = a[(i + blockDim.x) % (gridDim.x * blockDim.x)];
}
