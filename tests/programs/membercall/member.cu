// Member calls through objects whose type is a template parameter
// (`a.put(...)`, `pa->put(...)`, `sm.get()`, a functor's `f(...)`): which class's method runs is
// known only per instantiation, so hirace calls them through a caller that
// takes the checked overload (docs/instrumentation.md). Before, these calls
// ran the unchecked method: the race below in `put` went unreported, and the
// dynamic shared memory of the `Shared<T>` idiom (the cuda-samples'
// SharedMemory<T>) was never registered.
#include <cstdio>
#ifdef UNCHECKED
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#endif

struct Slot {
    int* p;
    __device__ void put(int i, int v) { p[i] = v; }
    __device__ unsigned thread_rank() const { return unsigned(p[0]); }
};

struct Store {
    int* p;
    __device__ void operator()(int i, int v) const { p[i] = v; }
};

template <class T> struct Shared;
template <> struct Shared<int> {
    __device__ int* get() {
        extern __shared__ int s_int[];
        return s_int;
    }
};

template <class A> __global__ void fill(A a, A* pa) {
    a.put(threadIdx.x, 1);
    pa->put(threadIdx.x + 32, 2);
#ifdef RACY
    a.put(64, int(threadIdx.x));
#endif
}

template <class F> __global__ void each(F f) {
    f(int(threadIdx.x), 3);
#ifdef RACY
    f(32, int(threadIdx.x));
#endif
}

template <class T> __global__ void rotate(const T* in, T* out) {
    Shared<T> sm;
    T* s = sm.get();
    s[threadIdx.x] = in[threadIdx.x];
#ifndef RACY
    __syncthreads();
#endif
    out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}

template <class G> __device__ unsigned rank(const G& g) { return g.thread_rank(); }

__global__ void ranks(Slot slot, unsigned* out) {
    out[threadIdx.x] = rank(slot);
#ifdef UNCHECKED
    out[threadIdx.x] += rank(cg::this_thread_block());
#endif
}

int main() {
    int *d, *in, *out, *e;
    unsigned* r;
    Slot* ps;
    cudaMalloc(&d, 65 * sizeof(int));
    cudaMalloc(&in, 32 * sizeof(int));
    cudaMalloc(&out, 32 * sizeof(int));
    cudaMalloc(&r, 32 * sizeof(unsigned));
    cudaMalloc(&ps, sizeof(Slot));
    cudaMalloc(&e, 33 * sizeof(int));
    cudaMemset(d, 0, 65 * sizeof(int));
    int h[32];
    for (int i = 0; i < 32; ++i) h[i] = i;
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    Slot slot{d};
    cudaMemcpy(ps, &slot, sizeof slot, cudaMemcpyHostToDevice);
    fill<<<1, 32>>>(slot, ps);
    rotate<<<1, 32, 32 * sizeof(int)>>>(in, out);
    ranks<<<1, 32>>>(slot, r);
    each<<<1, 32>>>(Store{e});
    int hd[65], ho[32];
    unsigned hr[32];
    int he[32];
    cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
    cudaMemcpy(ho, out, sizeof ho, cudaMemcpyDeviceToHost);
    cudaMemcpy(hr, r, sizeof hr, cudaMemcpyDeviceToHost);
    cudaMemcpy(he, e, sizeof he, cudaMemcpyDeviceToHost);
    int sum = 0, rot = 0, each_sum = 0;
    unsigned rs = 0;
    for (int i = 0; i < 64; ++i) sum += hd[i];
    for (int i = 0; i < 32; ++i) rot += ho[i] * (i + 1);
    for (int i = 0; i < 32; ++i) rs += hr[i];
    for (int i = 0; i < 32; ++i) each_sum += he[i];
    printf("%d %d %u %d\n", sum, rot, rs, each_sum);
    cudaFree(d); cudaFree(in); cudaFree(out); cudaFree(r); cudaFree(ps); cudaFree(e);
    return 0;
}
