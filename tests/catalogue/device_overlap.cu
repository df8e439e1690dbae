// Programs that test cudaDeviceProp::deviceOverlap before using streams
// (CUDA 13 dropped the field for asyncEngineCount; hirace claims CUDA 13, as
// its catalogue's headers, and its CPU backend keeps the field for older code).
// expect: overlap 3 1
#include <cstdio>

__global__ void three(int* v) { *v = 3; }

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
#if CUDART_VERSION < 13000 || defined(HIRACE_CPU)
  int overlap = prop.deviceOverlap;
#else
  int overlap = prop.asyncEngineCount;
#endif
  if (!overlap) {
    std::printf("no overlap\n");
    return 0;
  }
  int* v;
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMallocManaged(&v, sizeof(int));
  three<<<1, 1, 0, s>>>(v);
  cudaStreamSynchronize(s);
  int gpu_overlap = 0;
  cudaDeviceGetAttribute(&gpu_overlap, cudaDevAttrGpuOverlap, 0);
  std::printf("overlap %d %d\n", *v, gpu_overlap);
  return 0;
}
