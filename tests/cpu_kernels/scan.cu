// Inclusive scans: Hillis-Steele in shared memory, and a warp scan with
// __shfl_up_sync whose warp totals are combined through shared memory.
__global__ void inclusive_scan(const int* in, int* out, int n) {
    __shared__ int buf[2][512];
    int t = threadIdx.x;
    int src = 0;
    buf[src][t] = t < n ? in[t] : 0;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        int v = buf[src][t];
        if (t >= offset) v += buf[src][t - offset];
        buf[1 - src][t] = v;
        src = 1 - src;
        __syncthreads();
    }
    if (t < n) out[t] = buf[src][t];
}

__global__ void warp_scan(const unsigned* in, unsigned* out) {
    __shared__ unsigned totals[32];
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    unsigned v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int d = 1; d < 32; d <<= 1) {
        unsigned up = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += up;
    }
    if (lane == 31) totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        unsigned w = lane < blockDim.x / 32 ? totals[lane] : 0u;
        for (int d = 1; d < 32; d <<= 1) {
            unsigned up = __shfl_up_sync(0xffffffffu, w, d);
            if (lane >= d) w += up;
        }
        totals[lane] = w;
    }
    __syncthreads();
    if (warp > 0) v += totals[warp - 1];
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
