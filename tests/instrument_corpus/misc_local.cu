// Local memory stays untouched by the rewriter:
// - local arrays (indexed by constants and by loop counters), a local struct with an
//   array member, and #pragma unroll loops over global memory;
// - a pointer to a local array (int* p = local): its accesses are wrapped (the
//   rewriter cannot tell) and the runtime counts them as `local`;
// - a pointer to the device heap (malloc in a kernel): memory hirace did not see
//   allocated, counted as `unmonitored`.

struct Window {
    int vals[4];
    int count;
};

__global__ void local_arrays(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int hist[8] = {0};
    Window w;
    w.count = 0;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        int v = in[(i + k) % n];
        hist[v % 8]++;
        w.vals[k] = v;
        w.count += 1;
    }
    int best = 0;
#pragma unroll 2
    for (int k = 1; k < 8; ++k)
        if (hist[k] > hist[best]) best = k;
    out[i] = best * 100 + w.vals[3] - w.vals[0] + w.count;
}

__global__ void local_through_pointer(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int local[4];
    int* p = local;
#pragma unroll
    for (int k = 0; k < 4; ++k) p[k] = in[(i + k) % n];
    out[i] = p[0] + p[3] + *(p + 1);
}

__global__ void heap_through_pointer(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int* p = static_cast<int*>(malloc(4 * sizeof(int)));
    if (!p) return;
    for (int k = 0; k < 4; ++k) p[k] = in[(i + k) % n];
    out[i] = p[0] + p[3];
    free(p);
}
