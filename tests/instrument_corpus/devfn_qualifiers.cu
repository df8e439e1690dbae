// Device-function qualifiers: __forceinline__, __noinline__, static __device__,
// inline, static __forceinline__, and a __host__ __device__ helper that host code in
// the same file also calls (the original must still compile for the host).

__forceinline__ __device__ int fi_load(const int* p, int i) {
    return p[i];
}

__noinline__ __device__ void ni_store(int* p, int i, int v) {
    p[i] = v;
}

static __device__ int st_add(int* p, int i, int v) {
    p[i] += v;
    return p[i];
}

inline __device__ int in_twice(const int* p, int i) {
    return 2 * p[i];
}

static __forceinline__ __device__ void sfi_swap(int* a, int* b, int i) {
    int t = a[i];
    a[i] = b[i];
    b[i] = t;
}

__host__ __device__ int hd_weighted(const int* p, int i) {
    return p[i] * 3 + p[i + 1];
}

// Host code using the same helper on a host array.
int host_weighted_sum(const int* values, int n) {
    int s = 0;
    for (int i = 0; i + 1 < n; ++i) s += hd_weighted(values, i);
    return s;
}

__global__ void qualified_helpers(const int* in, int* a, int* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    ni_store(a, i, fi_load(in, i) + in_twice(in, i));
    int s = st_add(a, i, 5);
    b[i] += s;
    sfi_swap(a, b, i);
    if (i + 1 < n) a[i] += hd_weighted(in, i);
}
