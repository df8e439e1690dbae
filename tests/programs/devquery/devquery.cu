// Device queries and error handling: properties, an invalid device, a launch
// with an invalid configuration (not sticky: cleared by cudaGetLastError),
// then a good launch. Exits with status 3, which hirace must leave alone.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void iota(int* out) { out[threadIdx.x] = threadIdx.x; }

int main() {
  int count = 0, device = -1;
  cudaGetDeviceCount(&count);
  cudaGetDevice(&device);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, device);
  printf("devices %d, using %d: warp size %d, max threads per block %d\n", count, device,
         prop.warpSize, prop.maxThreadsPerBlock);
  cudaError_t err = cudaSetDevice(count);
  printf("cudaSetDevice(%d): %s\n", count, cudaGetErrorName(err));
  cudaError_t first = cudaGetLastError(), second = cudaGetLastError();
  printf("last error: %s, then %s\n", cudaGetErrorName(first), cudaGetErrorName(second));

  int* out;
  cudaMalloc(&out, 64 * sizeof(int));
  iota<<<1, 4096>>>(out);
  first = cudaGetLastError();
  second = cudaGetLastError();
  printf("after a launch of 4096 threads per block: %s, then %s\n", cudaGetErrorString(first),
         cudaGetErrorString(second));
  iota<<<1, 64>>>(out);
  printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  int h[64];
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("out[63] = %d\n", h[63]);
  cudaFree(out);
  return 3;
}
