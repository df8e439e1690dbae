// Warp barriers: __syncwarp() and __syncwarp(mask) with a full mask ordering shared
// accesses between lanes of one warp (no block barrier in between), and a partial
// mask (lanes 0-15) that orders nothing the kernel relies on: hirace counts it and
// reports a `partial-syncwarp` notice.

#define FULL_MASK 0xffffffffu

__global__ void warp_exchange_sync(const int* in, int* out) {
    __shared__ int w[128];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    w[t] = in[g];
    __syncwarp();
    int v = w[t ^ 1];
    __syncwarp(FULL_MASK);
    w[t] = v + w[t];
    __syncwarp(0xffffffff);
    out[g] = w[(t & ~31) + (31 - (t & 31))];
}

__global__ void warp_partial_mask(const int* in, int* out) {
    __shared__ int w[64];
    int t = threadIdx.x;
    int lane = t & 31;
    int g = blockIdx.x * blockDim.x + t;
    w[t] = in[g] * 2;
    if (lane < 16) __syncwarp(0x0000ffffu);
    __syncwarp();
    out[g] = w[t ^ 16] + lane;
}
