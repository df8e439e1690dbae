// Race-free in docs/semantics.md section 1, reported by the runtime, which
// does not model warp barriers over masks that are not its lane groups
// (docs/fsm.md, "What the table does not model"); the launch says so with a
// notice. And one case the lane groups make exact.
//
// masked_with_partner: lane 0 writes s[0]; lanes 0 and 1 pass __syncwarp(0x3)
//   together; lane 1 reads s[0]. The barrier orders the pair (1.3). 0x3 is
//   the only aligned mask in this file, so the runtime's lane groups are
//   pairs of lanes and this barrier is exact.
// masked_strided: the same with lanes 0 and 2 and __syncwarp(0x5), which is
//   no lane group: reported, with the notice.
// The race-free last-block reductions, whose messages the CPU runtime passes,
// are litmus cases (kernels/sync/message.cu).

__global__ void masked_with_partner(int *out)
{
    __shared__ int s[32];
    int lane = threadIdx.x % 32;
    if (lane == 0)
        s[0] = 1;
    if (lane < 2)
        __syncwarp(0x3u);
    if (lane == 1)
        out[0] = s[0];
}

__global__ void masked_strided(int *out)
{
    __shared__ int s[32];
    int lane = threadIdx.x % 32;
    if (lane == 0)
        s[0] = 1;
    if (lane == 0 || lane == 2)
        __syncwarp(0x5u);
    if (lane == 2)
        out[0] = s[0];
}
