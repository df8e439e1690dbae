#include "hirace_runtime.cuh"
#line 1 "shared.cu"
// Static and dynamic __shared__ variables register themselves with the thread
// context where they are declared, so accesses through pointers find them.
__global__ void stage(const int* in, int* out) { hirace::Thread __hr_t;
  __shared__ int tile[64]; __hr_t.add_shared(0, (const void*)&tile, sizeof(tile), 0u, 2u);
  extern __shared__ int spill[]; __hr_t.add_dynamic_shared(1, (const void*)spill, 64u);
  int t = threadIdx.x;
  (*hirace::wr(__hr_t, &(tile[t]), 0u)) = (*hirace::rd(__hr_t, &(in[t]), 1u));
  (*hirace::wr(__hr_t, &(spill[t]), 2u)) = (*hirace::rd(__hr_t, &(tile[63 - t]), 3u));
  (__syncthreads(), __hr_t.block_barrier());
  (*hirace::wr(__hr_t, &(out[t]), 4u)) = (*hirace::rd(__hr_t, &(spill[t]), 5u));
}
