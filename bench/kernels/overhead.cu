// Kernels for bench/overhead.py: each race-free, each stressing one cost.

// Memory-bound: one read of each input, one write.
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Memory-bound with neighbour reads.
__global__ void stencil(int n, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

// Compute-bound: many flops per memory access.
__global__ void polynomial(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], acc = 0.0f;
  for (int k = 0; k < 256; ++k) acc = acc * v + 0.001f * k;
  y[i] = acc;
}

// Shared-memory heavy: tree reduction with a barrier per level.
__global__ void block_sum(const float* in, float* out) {
  __shared__ float s[256];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (int stride = 128; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// Shared-memory heavy with 2-D blocks: tiled matrix multiply.
__global__ void matmul(int n, const float* a, const float* b, float* c) {
  __shared__ float ta[16][16];
  __shared__ float tb[16][16];
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += 16) {
    ta[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

// Atomic heavy: block-scope histogram in shared memory, merged with device atomics.
__global__ void histogram(int n, const int* keys, int* hist) {
  __shared__ int local[64];
  int t = threadIdx.x;
  if (t < 64) local[t] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x)
    atomicAdd_block(&local[keys[i] & 63], 1);
  __syncthreads();
  if (t < 64) atomicAdd(&hist[t], local[t]);
}

// Transpose through shared memory.
__global__ void transpose(int n, const float* in, float* out) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

// Warp shuffles plus one device atomic per warp.
__global__ void warp_sum(int n, const int* in, unsigned long long* total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(total, (unsigned long long)v);
}
