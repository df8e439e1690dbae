// Qualified pointers: const and __restrict__ parameters, const pointers to
// non-const data (int* const), pointers to const through a cast, and volatile
// pointers (a flag array written, read back after a barrier, and volatile shared).

__global__ void saxpy_restrict(const float* __restrict__ x, float* __restrict__ y, float alpha,
                               int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i] + y[i];
}

__global__ void const_pointers(const int* __restrict__ in, int* const out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int* const p = in + i;
    int* const q = out + i;
    *q = *p * 2;
    const int* r = const_cast<const int*>(q);
    out[i] = *r + in[(i + 1) % n];
}

__global__ void volatile_flags(volatile int* flags, int* out) {
    __shared__ volatile int seen[128];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    flags[g] = t * 3 + 1;
    seen[t] = flags[g];
    __syncthreads();
    int other = blockIdx.x * blockDim.x + (t + 1) % blockDim.x;
    out[g] = flags[other] + seen[(t + 5) % blockDim.x];
    __syncthreads();
    flags[g] += 1;
}
