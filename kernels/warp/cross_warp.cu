// __syncwarp orders the lanes of one warp only.
//
// syncwarp_cross_warp (1 block of 64 = 2 warps): thread t writes s[t] [CW],
//   __syncwarp, then reads s[(t + 32) % 64] [CR], the slot of the thread with the
//   same lane in the other warp.  The warp barriers of warp 0 and warp 1 are
//   different barriers; nothing orders a write in one warp with a read in the
//   other: read-write race [CW]-[CR] (shared).
// syncthreads_cross_warp: the same with __syncthreads, which spans both warps:
//   race-free.

__global__ void syncwarp_cross_warp(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t * 2;                          // [CW]
    __syncwarp();
    out[t] = s[(t + 32) % 64];             // [CR]
}

__global__ void syncthreads_cross_warp(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t * 2;
    __syncthreads();
    out[t] = s[(t + 32) % 64];
}
