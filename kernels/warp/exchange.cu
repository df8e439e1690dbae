// Warp-synchronous exchange through shared memory, with and without __syncwarp.
//
// Each lane writes its own slot, then reads the slot of the next lane of the same
// warp.  semantics.md 1: only barriers order events; the hardware's lock-step
// execution of a warp is not assumed.
// warp_exchange_sync: __syncwarp() (full mask) between the write and the read;
//   the writer of the slot read is a lane of the same warp, so the write
//   happens-before the read: race-free.
// warp_exchange_nosync: no __syncwarp: the read [XR] of the next lane's slot is
//   unordered with that lane's write [XW]: read-write race [XW]-[XR].
// Launch with blockDim.x a multiple of 32 and <= 64.

__global__ void warp_exchange_sync(const int *in, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int lane = t % 32;
    int base = t - lane;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = in[i];
    __syncwarp();
    out[i] = s[base + (lane + 1) % 32];
}

__global__ void warp_exchange_nosync(const int *in, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int lane = t % 32;
    int base = t - lane;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = in[i];                          // [XW]
    out[i] = s[base + (lane + 1) % 32];    // [XR] lock-step is not a barrier
}
