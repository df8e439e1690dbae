// Functor structs with a __device__ operator(), called directly and through a
// templated helper (`f(in[i])` with `f` of template-parameter type, which goes
// through hirace::call_operator). Call operators are instrumented like any
// method; the kernels must still compute the same. One functor reads global
// memory inside operator() through a member pointer: that access is checked.

struct Scale {
    float k;
    __device__ float operator()(float v) const { return v * k; }
};

struct LoadFrom {
    const float* src;
    __device__ float operator()(int i) const { return src[i]; }
};

template <typename F>
__device__ void apply(F f, const float* in, float* out, int i) {
    out[i] = f(in[i]);
}

__global__ void functors(const float* in, const float* other, float* out, float* out2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Scale half{0.5f};
    apply(half, in, out, i);
    LoadFrom from{other};
    out2[i] = from((i + 1) % n) + Scale{3.0f}(in[i]);
}
