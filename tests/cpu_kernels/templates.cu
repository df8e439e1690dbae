// Device functions called through templates, from a local header.
#include "functors.cuh"

template <typename Op, typename T>
__device__ T apply_twice(T v) {
    return Op::apply(Op::apply(v));
}

template <int N>
__device__ __noinline__ int power_sum(int v) {
    int s = 0, p = 1;
    for (int i = 0; i < N; ++i) { p *= v; s += p; }
    return s;
}

__global__ void __launch_bounds__(128) transform(const float* in, float* squared_twice,
                                                 int* cubic_sum, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        squared_twice[i] = apply_twice<Square, float>(in[i]);
        cubic_sum[i] = power_sum<3>(i);
    }
}

// A template kernel: the CPU backend launches non-template kernels only.
template <typename T>
__global__ void fill(T* out, T value) {
    out[threadIdx.x] = value;
}

// A plain kernel using a member template.
__global__ void fill_int(int* out, int value) {
    out[threadIdx.x] = value + Square::apply(2);
}
