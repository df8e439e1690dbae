// An extended __device__ lambda written in host code and passed to a template
// kernel whose parameter type is deduced from it. The CPU backend names the
// launched specialization by its parameter types, and a closure type has no
// name to spell: it is spelled as the decayed type of its argument. The
// lambda's body is not instrumented (a `device-lambda` warning).
// expect: 7
#include <cstdio>

template <class F> __global__ void apply(int* p, F f) { f(p); }

int main() {
    int* d;
    cudaMalloc(&d, sizeof(int));
    auto seven = [] __device__ (int* p) { *p = 7; };
    apply<<<1, 1>>>(d, seven);
    int h = 0;
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%d\n", h);
    cudaFree(d);
    return 0;
}
