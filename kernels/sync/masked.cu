// __syncwarp(mask) orders only the lanes named in its mask (docs/semantics.md 1.3).
//
// masked_partner_outside (1 block of 32): lane 0 writes s[0] [MW]; lanes 0 and 1
//   each pass a __syncwarp whose mask names only the caller, so no barrier has
//   both; lane 1 reads s[0] [MR]: read-write race [MW]-[MR].
// masked_reader_outside (1 block of 32): lanes 0 and 1 pass __syncwarp(0x3)
//   together, but the reader of s[0] is lane 2, outside the mask: race
//   [OW]-[OR].
// A mask that names the partner (lane 1 reading after __syncwarp(0x3)) is
// race-free, but the runtime does not model partial masks (docs/fsm.md, "What
// the table does not model") and reports it: that case is in
// tests/test_sync_constructs.py, not here.

__global__ void masked_partner_outside(int *out)
{
    __shared__ int s[32];
    int lane = threadIdx.x % 32;
    if (lane == 0)
        s[0] = 1;                                     // [MW]
    if (lane < 2)
        __syncwarp(1u << lane);
    if (lane == 1)
        out[0] = s[0];                                // [MR]
}

__global__ void masked_reader_outside(int *out)
{
    __shared__ int s[32];
    int lane = threadIdx.x % 32;
    if (lane == 0)
        s[0] = 2;                                     // [OW]
    if (lane < 2)
        __syncwarp(0x3u);
    if (lane == 2)
        out[0] = s[0];                                // [OR]
}
