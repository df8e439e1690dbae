// Large grids: block ids above 2^16 must stay distinguishable (semantics.md 3).
//
// scale_high_blocks (grid 70100 x 32): every block writes its own slot of
//   `own` (race-free); only the blocks numbered 70000 .. 70099 also write
//   hot[0] [HW], from thread 0.  These 100 writes are by different blocks and
//   unordered: write-write race [HW]-[HW].  The race exists only among blocks
//   whose ids do not fit in 16 bits.
// scale_block_alias (grid 70000 x 32): thread 0 of block b < 65536 writes out[b]
//   [LW]; thread 0 of block b >= 65536 writes out[b - 65536] [HI].  So blocks
//   b and b + 65536 (b < 4464) write the same element: write-write race
//   [LW]-[HI].  No element is written twice by [LW] or twice by [HI].  A checker
//   that keeps 16 bits of the block id sees the same thread twice and misses it.

__global__ void scale_high_blocks(int *own, int *hot)
{
    int b = blockIdx.x;
    int t = threadIdx.x;
    own[b * blockDim.x + t] = t;
    if (b >= 70000 && t == 0)
        hot[0] = b;                                   // [HW]
}

__global__ void scale_block_alias(int *out)
{
    int b = blockIdx.x;
    if (threadIdx.x == 0) {
        if (b < 65536)
            out[b] = b;                               // [LW]
        else
            out[b - 65536] = b;                       // [HI]
    }
}
