// 8-bit floating point from the toolkit's cuda_fp8.h.
// refuses: 8-bit floating point (cuda_fp8.h) (#include <cuda_fp8.h>)
// warns: 8-bit floating point (cuda_fp8.h) (#include <cuda_fp8.h>)
#include <cuda_fp8.h>

__global__ void widen(float* y, const __nv_fp8_e4m3* x) {
  int i = threadIdx.x;
  y[i] = float(x[i]);
}
