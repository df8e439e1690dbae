// A kernel launched with cudaLaunchCooperativeKernel, not <<<>>>.
// refuses: cooperative and extended launches (cudaLaunchCooperativeKernel)
// warns: cooperative and extended launches (cudaLaunchCooperativeKernel)
#include <cuda_runtime.h>

__global__ void twice(int* data) { data[threadIdx.x] *= 2; }

int main() {
  int* data;
  cudaMalloc(&data, 64 * sizeof(int));
  void* args[] = {&data};
  cudaLaunchCooperativeKernel((void*)twice, dim3(1), dim3(64), args, 0, 0);
  cudaDeviceSynchronize();
  cudaFree(data);
  return 0;
}
