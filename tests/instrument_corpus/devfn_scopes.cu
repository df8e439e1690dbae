// Where device functions live and how they are spelled:
// - functions in a namespace, a nested namespace and an anonymous namespace, called
//   with qualified names; a kernel inside a namespace;
// - functions without parameters, written f() and f(void);
// - a static member function (S::read) and member functions declared in the class and
//   defined outside it (S::f, S::g const);
// - an explicit specialization of a function template;
// - a constexpr __device__ function and a trailing return type.

namespace util {
__device__ int lane_id(void) {
    return threadIdx.x & 31;
}
__device__ int warp_id() {
    return threadIdx.x / 32;
}
__device__ int get(const int* p, int i) {
    return p[i];
}
namespace detail {
__device__ void put(int* p, int i, int v) {
    p[i] = v;
}
}  // namespace detail
}  // namespace util

namespace {
__device__ int anon_twice(const int* p, int i) {
    return 2 * p[i];
}
}  // namespace

struct Reader {
    const int* base;
    static __device__ int read(const int* p, int i) { return p[i]; }
    __device__ int f(int i) const;
    __device__ int g(const int* other, int i) const;
};

__device__ int Reader::f(int i) const {
    return base[i] + 1;
}

__device__ int Reader::g(const int* other, int i) const {
    return other[i] - f(i);
}

template <typename T>
__device__ T first(const T* p) {
    return p[0];
}

template <>
__device__ float first<float>(const float* p) {
    return p[1] + p[2];
}

constexpr __device__ int doubled(int v) {
    return v * 2;
}

__device__ auto trailing(const int* p, int i) -> int {
    return p[i] + doubled(p[i]);
}

namespace kernels {
__global__ void scoped_calls(const int* in, int* out, const float* fin, float* fout) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    Reader r{in};
    int v = util::get(in, t) + anon_twice(in, t) + Reader::read(in, t) + r.g(in, t);
    util::detail::put(out, t, v + util::lane_id() * 1000 + util::warp_id());
    out[t] += trailing(in, t) + first(in);
    fout[t] = first(fin) + first<float>(fin + t);
}
}  // namespace kernels
