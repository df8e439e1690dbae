// Half-warp barriers: __syncwarp over 16 aligned lanes orders exactly those
// lanes (docs/semantics.md 1.3). Every mask in this file names 16 aligned
// lanes, so the runtime's lane groups are half warps and the verdicts are
// exact ("Warp barriers in the runtime").
//
// halves_within (1 block of 64): each lane writes s[t] [HW]; each half warp
//   passes its own barrier; each lane reads a mirror element of its own
//   half [HR]: race-free.
// halves_across (1 block of 64): the same, but each lane reads the element
//   of the other half of its warp, which no barrier it passed names: race
//   [AW]-[AR].
// halves_nosync (1 block of 64): the barrier left out: the mirror read races
//   with its writer [NW]-[NR].

__device__ void half_sync(unsigned lane)
{
    if (lane < 16)
        __syncwarp(0x0000ffffu);
    else
        __syncwarp(0xffff0000u);
}

__global__ void halves_within(int *out)
{
    __shared__ int s[64];
    unsigned t = threadIdx.x, lane = t % 32;
    s[t] = (int)t;                                    // [HW]
    half_sync(lane);
    out[t] = s[t / 16 * 16 + 15 - t % 16];            // [HR]
}

__global__ void halves_across(int *out)
{
    __shared__ int s[64];
    unsigned t = threadIdx.x, lane = t % 32;
    s[t] = (int)t;                                    // [AW]
    half_sync(lane);
    out[t] = s[t / 32 * 32 + (lane + 16) % 32];       // [AR]
}

__global__ void halves_nosync(int *out)
{
    __shared__ int s[64];
    unsigned t = threadIdx.x;
    s[t] = (int)t;                                    // [NW]
    out[t] = s[t / 16 * 16 + 15 - t % 16];            // [NR]
}
