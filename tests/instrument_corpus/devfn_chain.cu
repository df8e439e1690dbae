// Device-function call structure:
// - a chain of four calls (kernel -> level1 -> level2 -> level3 -> load), all taking
//   pointers to global memory;
// - forward declarations before use, with definitions after the kernel;
// - a default argument given in the forward declaration, called with and without it;
// - overloads of one name (pick on int*, on float*, and with an extra parameter);
// - device functions defined both before and after the kernel.

__device__ float load(const float* p, int i) {
    return p[i];
}

__device__ float level1(const float* p, int i, int n);
__device__ float scale(float v, float by = 2.0f);

__device__ int pick(const int* p, int i) {
    return p[i] + 1;
}

__device__ float pick(const float* p, int i) {
    return p[i] * 0.5f;
}

__device__ float pick(const float* p, int i, int j) {
    return p[i] - p[j];
}

__global__ void call_chain(const float* in, float* out, const int* iin, int* iout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = level1(in, i, n) + pick(in, i) + pick(in, i, (i + 3) % n);
    out[i] += scale(in[i]) + scale(load(in, i), 0.25f);
    iout[i] = pick(iin, i) + pick(iin, (i + 1) % n);
}

__device__ float level3(const float* p, int i, int n) {
    return load(p, i) + load(p, (i + 1) % n);
}

__device__ float level2(const float* p, int i, int n) {
    return level3(p, i, n) * 2.0f - p[i];
}

__device__ float level1(const float* p, int i, int n) {
    return level2(p, i, n) + level3(p, (i + 2) % n, n);
}

__device__ float scale(float v, float by) {
    return v * by;
}

// A writer chain: the innermost helper stores through the pointer it is given.
__device__ void store_leaf(int* p, int i, int v) {
    p[i] = v;
}

__device__ void store_mid(int* p, int i, int v, int copies = 1) {
    for (int c = 0; c < copies; ++c) store_leaf(p, i * copies + c, v + c);
}

__device__ void store_top(int* p, int i, const int* src) {
    store_mid(p, i, src[i], 2);
}

__global__ void store_chain(const int* src, int* dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) store_top(dst, i, src);
}
