// Dynamic shared memory reached through a conversion operator in a template
// (`T* s = Dynamic<T>();`, the cuda-samples' SharedMemory<T> idiom): the
// operator is not instrumented (a counted `operator` warning), so its
// `extern __shared__` declaration never registers the memory. Kernels of a
// unit that declares dynamic shared memory register it in their prologue, so
// the tile is monitored anyway and the race without the barrier is found.
#include <cstdio>

template <class T> struct Dynamic {
    __device__ operator T*() {
        extern __shared__ int dynamic_words[];
        return reinterpret_cast<T*>(dynamic_words);
    }
};

template <class T> __global__ void rotate(const T* in, T* out) {
    T* s = Dynamic<T>();
    s[threadIdx.x] = in[threadIdx.x];
#ifndef RACY
    __syncthreads();
#endif
    out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}

int main() {
    float *in, *out;
    cudaMalloc(&in, 32 * sizeof(float));
    cudaMalloc(&out, 32 * sizeof(float));
    float h[32];
    for (int i = 0; i < 32; ++i) h[i] = float(i);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    rotate<<<1, 32, 32 * sizeof(float)>>>(in, out);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    float sum = 0;
    for (int i = 0; i < 32; ++i) sum += h[i] * float(i + 1);
    printf("%.0f\n", sum);
    cudaFree(in);
    cudaFree(out);
    return 0;
}
