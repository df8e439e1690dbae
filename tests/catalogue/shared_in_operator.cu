// Dynamic shared memory declared in a conversion operator of a struct
// template (a common way around extern __shared__ arrays of template type).
// expect: 496
#include <cstdio>

template <class T> struct Scratch {
  __device__ operator T*() {
    extern __shared__ int scratch_words[];
    return (T*)scratch_words;
  }
};

template <class T> __global__ void sum(const T* in, T* out) {
  T* s = Scratch<T>();
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    T total = 0;
    for (unsigned i = 0; i < blockDim.x; ++i) total += s[i];
    *out = total;
  }
}

int main() {
  int *in, *out;
  cudaMallocManaged(&in, 32 * sizeof(int));
  cudaMallocManaged(&out, sizeof(int));
  for (int i = 0; i < 32; ++i) in[i] = i;
  sum<int><<<1, 32, 32 * sizeof(int)>>>(in, out);
  cudaDeviceSynchronize();
  printf("%d\n", *out);
  return 0;
}
