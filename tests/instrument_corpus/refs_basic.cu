// References to memory:
// - a local reference bound to an element (float& r = a[i]; r += 1; r = r * 3);
// - a const reference to an element and to shared memory;
// - a[i] passed to __device__ functions taking int& and const int&;
// - a device function returning a value read through a pointer (not a reference).

__device__ void bump(int& x, int by) {
    x += by;
}

__device__ int twice(const int& x) {
    return 2 * x;
}

__device__ int value_at(const int* a, int i) {
    return a[i];
}

__device__ void swap_refs(float& a, float& b) {
    float t = a;
    a = b;
    b = t;
}

__global__ void references(int* a, const int* b, int* out, float* x, float* y, int n) {
    __shared__ int stage[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    int& s = stage[t];
    s = b[i];
    __syncthreads();
    if (i >= n) return;
    int& r = a[i];
    r += 1;
    r = r * 3;
    const int& cr = b[i];
    const int& neighbour = stage[(t + 1) % blockDim.x];
    out[i] = cr + twice(b[i]) + value_at(a, i) + neighbour;
    bump(a[i], cr);
    bump(out[i], twice(stage[t]));
    float& fx = x[i];
    fx *= 0.5f;
    swap_refs(fx, y[i]);
}
