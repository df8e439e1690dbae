// Lambdas and printf in kernels:
// - lambdas capturing by reference ([&]) and by value ([=]) that read and write
//   global memory, called several times; a lambda with a shared-memory access;
// - a lambda with an explicit capture list of the pointers it uses;
// - a by-value lambda calling an instrumented __device__ function;
// - printf with arguments read from global memory (output is not compared).

#include <cstdio>

__device__ float halve(const float* p, int j) {
    return 0.5f * p[j];
}

__global__ void lambdas(const float* in, float* out, int n) {
    __shared__ float stage[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    auto load = [&](int j) { return in[j % n]; };
    auto store = [&](int j, float v) { out[j] = v; };
    auto twice = [=](int j) { return 2.0f * in[j % n] + halve(in, j % n); };
    auto stage_at = [&](int j) -> float& { return stage[j]; };
    stage[t] = load(i + 1);
    __syncthreads();
    if (i >= n) return;
    store(i, load(i) + twice(i + 2) + stage_at((t + 1) % blockDim.x));
    if (i == 0) printf("lambdas: n=%d in[0]=%f out[0]=%f\n", n, in[0], out[0]);
}

__global__ void lambda_explicit_capture(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    auto add_from = [in, out, n](int at, int from) { out[at] += in[from % n]; };
    out[i] = 0;
    add_from(i, i);
    add_from(i, i + 1);
}
