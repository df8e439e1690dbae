// What older and C-style CUDA code writes and nvcc accepts: `register`
// (removed from C++17: nvcc and g++ warn, clang refuses), a linkage string
// against `__global__`, ptrdiff_t without <stddef.h> (cuda_runtime.h pulls it
// in), and fields and attributes of CUDA 13's runtime API that a hand-typed
// list once lacked.
// expect: 6 1 0 512 0
#include <stdio.h>

extern "C"__global__ void scale(int* a, ptrdiff_t n) {
  for (ptrdiff_t i = threadIdx.x; i < n; i += blockDim.x) a[i] *= 2;
}

int main() {
  register int n = 4;
  int* a;
  cudaMallocManaged(&a, n * sizeof(int));
  for (int i = 0; i < n; ++i) a[i] = i;
  scale<<<1, 2>>>(a, n);
  cudaDeviceSynchronize();
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  cudaFuncAttributes attrs;
  cudaFuncGetAttributes(&attrs, scale);
  int alignment = 0;
  cudaDeviceGetAttribute(&alignment, cudaDevAttrTextureAlignment, 0);
  printf("%d %d %d %d %d\n", a[3], prop.hostRegisterSupported, prop.hostNativeAtomicSupported,
         alignment, attrs.requiredClusterWidth);
  cudaFree(a);
  return 0;
}
