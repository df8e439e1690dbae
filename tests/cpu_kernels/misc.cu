// Parameters, namespaces, printf, schedules.
#include <cstdio>

struct Params {
    int scale;
    float bias;
    double weights[2];
};

namespace kernels {
// A struct passed by value, and a vector type by value.
__global__ void affine(Params p, int2 range, float* out) {
    int i = range.x + threadIdx.x;
    if (i < range.y)
        out[i] = p.scale * i + p.bias + (float)(p.weights[0] * p.weights[1]);
}
}  // namespace kernels

// Each thread has its own copy of the parameters: changing them is private.
__global__ void private_params(int n, int* out, int* other) {
    n += threadIdx.x;
    out += threadIdx.x;
    *out = n;
    other[threadIdx.x] = n * 2;
}

__global__ void hello(int tag) {
    if (threadIdx.x < 2) printf("hello from block %d thread %d tag %d\n", blockIdx.x, threadIdx.x, tag);
}

// A deliberate race: each thread reads its neighbour's slot with no barrier.
// What it reads depends on the interleaving, which the schedule decides.
__global__ void racy_neighbour(int* out) {
    __shared__ int slot[64];
    slot[threadIdx.x] = threadIdx.x + 1;
    __syncwarp();
    int seen = slot[(threadIdx.x + 32) % 64];
    out[threadIdx.x] = seen;
}

__global__ void __launch_bounds__(256, 2) bool_and_char(bool flag, char c, unsigned char* out) {
    out[threadIdx.x] = flag ? (unsigned char)(c + threadIdx.x) : 0;
}

#if 0
__global__ void disabled(int* out) { this does not compile }
#endif

#ifdef WITH_EXTRA
__global__ void extra(int* out) { out[0] = EXTRA_VALUE; }
#endif
