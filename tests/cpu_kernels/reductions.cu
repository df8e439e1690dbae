// Reductions: shared memory with block barriers, and warp shuffles.
#include <cuda_runtime.h>

// Tree reduction in shared memory: log2(blockDim.x) barriers per block.
__global__ void block_reduce(const float* in, float* out, int n) {
    __shared__ float partial[256];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}

__device__ __forceinline__ int warp_sum(int v) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// Warp shuffles within each warp, then one shuffle round over the warp sums.
__global__ void shuffle_reduce(const int* __restrict__ in, int* out, int n) {
    __shared__ int warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % warpSize;
    int warp = threadIdx.x / warpSize;
    int v = warp_sum(i < n ? in[i] : 0);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / warpSize ? warp_sums[lane] : 0;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

// Butterfly all-reduce: every lane ends with the warp's maximum.
__global__ void xor_allreduce_max(const float* in, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    #pragma unroll
    for (int mask = 16; mask >= 1; mask >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, mask));
    out[i] = v;
}

// Rows of a 2-D block reduce along x, then thread (0, y) adds its row's sum.
__global__ void row_sums_2d(const double* in, double* out, int width) {
    extern __shared__ double rows[];
    int x = threadIdx.x, y = threadIdx.y;
    double* row = rows + y * blockDim.x;
    row[x] = in[(blockIdx.x * blockDim.y + y) * width + x];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (x < stride) row[x] += row[x + stride];
        __syncthreads();
    }
    if (x == 0) out[blockIdx.x * blockDim.y + y] = row[0];
}
