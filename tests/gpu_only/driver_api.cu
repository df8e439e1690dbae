// The driver API next to the runtime (cuda.h is read as it is for the parse).
// refuses: the CUDA driver API (cuda.h) (CUresult)
// warns: the CUDA driver API (cuda.h) (cuInit)
#include <cuda.h>

static int init() {
  CUresult status = cuInit(0);
  return status == CUDA_SUCCESS ? 0 : 1;
}

__global__ void zero(int* p) { p[threadIdx.x] = 0; }

int main() { return init(); }
