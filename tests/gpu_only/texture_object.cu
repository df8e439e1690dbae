// A texture object over a CUDA array, read in a kernel.
// refuses: textures and surfaces (cudaTextureObject_t)
// warns: textures and surfaces (tex2D)
// warns: CUDA arrays (cudaMallocArray)
#include <cuda_runtime.h>

__global__ void sample(float* out, cudaTextureObject_t tex, int w) {
  int x = threadIdx.x;
  out[x] = tex2D<float>(tex, x + 0.5f, 0.5f) * 2.0f;
}

int main() {
  const int w = 32;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t array;
  cudaMallocArray(&array, &desc, w, 1);
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc td = {};
  td.addressMode[0] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex = 0;
  cudaCreateTextureObject(&tex, &res, &td, nullptr);
  float* out;
  cudaMalloc(&out, w * sizeof(float));
  sample<<<1, w>>>(out, tex, w);
  cudaDestroyTextureObject(tex);
  cudaFreeArray(array);
  cudaFree(out);
  return 0;
}
