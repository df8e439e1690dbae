#include "hirace_runtime.cuh"
#line 1 "basic.cu"
// Reads, writes, compound assignment and increments on a global array.
__global__ void basic(float* a, const float* b, int* count, int n) { hirace::Thread __hr_t;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    (*hirace::wr(__hr_t, &(a[i]), 0u)) = (*hirace::rd(__hr_t, &(b[i]), 1u)) * 2.0f;
    (*hirace::rw(__hr_t, &(a[i]), 2u, 3u)) += (*hirace::rd(__hr_t, &(b[(i + 1) % n]), 4u));
    (*hirace::rw(__hr_t, &(count[i]), 5u, 6u))++;
    float local[2] = {(*hirace::rd(__hr_t, &(a[i]), 7u)), 0.0f};
    local[1] = local[0];
  }
}
