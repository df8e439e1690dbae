// Templated __device__ functions:
// - called with deduced template arguments and with explicit ones;
// - a non-type template parameter (add_n<int, 3>);
// - a template taking references (swap_vals(T&, T&)) bound to global elements;
// - a template calling another template (sum_window -> load_twice);
// - a template whose pointee type is a struct (pair members through T*).

template <typename T>
__device__ T load_twice(const T* p, int i) {
    return p[i] + p[i];
}

template <typename T, int N>
__device__ void add_n(T* p, int i) {
    p[i] += N;
}

template <typename T>
__device__ void swap_vals(T& a, T& b) {
    T t = a;
    a = b;
    b = t;
}

template <typename T, int W>
__device__ T sum_window(const T* p, int i, int n) {
    T s = 0;
    for (int k = 0; k < W; ++k) s += load_twice<T>(p, (i + k) % n);
    return s;
}

struct Pair {
    int key;
    int value;
};

template <typename P>
__device__ void bump_pair(P* p, int i) {
    p[i].value += p[i].key;
    p[i].key = -p[i].key;
}

__global__ void templated_calls(const int* in, int* out, const float* fin, float* fout, int* x,
                                int* y, Pair* pairs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = load_twice(in, i);
    fout[i] = load_twice<float>(fin, i) + sum_window<float, 3>(fin, i, n);
    add_n<int, 3>(out, i);
    out[i] += sum_window<int, 2>(in, i, n);
    swap_vals(x[i], y[i]);
    swap_vals<int>(x[i], out[i]);
    bump_pair(pairs, i);
}
