// Kernels that go wrong, each in a way the backend must report.

// Threads of a block wait at two different barriers.
__global__ void two_barriers(int* out) {
    if (threadIdx.x < 32) {
        __syncthreads();
        out[threadIdx.x] = 1;
    } else {
        out[threadIdx.x] = 2;
        __syncthreads();
    }
}

// Some threads return before a barrier the others wait at.
__global__ void early_exit(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __shared__ int s[64];
    s[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = s[(threadIdx.x + 1) % 64];
}

// Half a warp shuffles, the other half waits at a block barrier.
__global__ void shuffle_vs_barrier(int* out) {
    int v = threadIdx.x;
    if (threadIdx.x < 16)
        v = __shfl_xor_sync(0xffffffffu, v, 16);
    else
        __syncthreads();
    out[threadIdx.x] = v;
}

// A mask that leaves out the calling lane.
__global__ void bad_mask(int* out) {
    out[threadIdx.x] = __shfl_sync(0x1u, threadIdx.x, 0);
}

// Never terminates (no thread ever changes the flag).
__global__ void spin_forever(volatile int* flag) {
    while (*flag == 0) { }
}

// Each block waits for the other to set its flag. On a GPU both blocks run at
// once; the CPU backend runs blocks one after another, so block 0 waits for a
// block that never starts: a cross-block spin-wait cannot work there.
__global__ void wait_for_other_block(int* flags) {
    if (threadIdx.x == 0) {
        atomicExch(&flags[blockIdx.x], 1);
        while (atomicAdd(&flags[1 - blockIdx.x], 0) == 0) { }
    }
}

// Writes one element past the end of `out` (an off-by-one bound).
__global__ void off_by_one(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = 1.0f;
}

// Reads before the start of `in`.
__global__ void negative_index(const int* in, int* out) {
    out[threadIdx.x] = in[(int)threadIdx.x - 1024];
}

// Reads past the dynamic shared memory the launch asked for.
__global__ void shared_overrun(float* out) {
    extern __shared__ float dyn[];
    dyn[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = dyn[threadIdx.x];
}

__global__ void divide(const int* a, int* out, int d) {
    out[threadIdx.x] = a[threadIdx.x] / d;
}

__device__ int deep(int depth) {
    volatile char frame[4096];
    frame[depth % 4096] = (char)depth;
    return depth == 0 ? frame[0] : deep(depth - 1) + frame[depth % 4096];
}

__global__ void overflow_stack(int* out, int depth) {
    out[0] = deep(depth);
}

__global__ void trapping(int* out) {
    if (threadIdx.x == 3) __trap();
    out[threadIdx.x] = 1;
}

__global__ void null_write(int* out) {
    out[threadIdx.x] = 1;
}
