// A kernel writing through a surface object.
// refuses: textures and surfaces (cudaSurfaceObject_t)
// warns: textures and surfaces (surf2Dwrite)
#include <cuda_runtime.h>

__global__ void fill(cudaSurfaceObject_t surface, float value) {
  surf2Dwrite(value, surface, threadIdx.x * (int)sizeof(float), blockIdx.x);
}
