// Half-precision arithmetic from the toolkit's cuda_fp16.h.
// refuses: half precision (cuda_fp16.h) (#include <cuda_fp16.h>)
// warns: half precision (cuda_fp16.h) (#include <cuda_fp16.h>)
#include <cuda_fp16.h>

__global__ void axpy(__half* y, const __half* x, __half a) {
  int i = threadIdx.x;
  y[i] = __hadd(__hmul(a, x[i]), y[i]);
}
