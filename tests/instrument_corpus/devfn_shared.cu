// Shared memory and device functions:
// - pointers to __shared__ arrays passed to helpers that read and write through them;
// - a helper writing a shared 2-D row through a pointer to its first element;
// - a __shared__ scalar and array declared inside a __device__ function (per-block
//   state used by every thread that calls it), with barriers inside the helper.

__device__ void stage_in(float* s, const float* g, int t) {
    s[t] = g[t];
}

__device__ float neighbour_sum(const float* s, int t, int n) {
    return s[(t + n - 1) % n] + s[t] + s[(t + 1) % n];
}

__device__ void fill_row(int* row, int width, int base) {
    for (int k = 0; k < width; ++k) row[k] = base + k;
}

__global__ void shared_through_helpers(const float* in, float* out, int* rows_out) {
    __shared__ float tile[128];
    __shared__ int rows[4][32];
    int t = threadIdx.x;
    int n = blockDim.x;
    stage_in(tile, in + blockIdx.x * n, t);
    if (t < 4) fill_row(&rows[t][0], 32, t * 100 + (int)blockIdx.x);
    __syncthreads();
    out[blockIdx.x * n + t] = neighbour_sum(tile, t, n);
    rows_out[blockIdx.x * n + t] = rows[t / 32][t % 32];
}

// Every thread of the block calls it: thread 0 resets the block total, the block
// adds to it with block-scope atomics, everyone reads it after the barrier.
__device__ int block_total(int v, int* scratch_out) {
    __shared__ int total;
    __shared__ int parts[64];
    int t = threadIdx.x;
    if (t == 0) total = 0;
    parts[t] = v;
    __syncthreads();
    atomicAdd_block(&total, parts[(t + 1) % blockDim.x]);
    __syncthreads();
    scratch_out[t] = parts[t] * 2;
    int result = total;
    __syncthreads();
    return result;
}

__global__ void shared_in_device_fn(const int* in, int* out, int* scratch) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int first = block_total(in[g], scratch + blockIdx.x * blockDim.x);
    int second = block_total(in[g] * 3, scratch + blockIdx.x * blockDim.x);
    out[g] = first + second;
}
