#include "hirace_runtime.cuh"
#line 1 "sync_atomics.cu"
// Atomics become block- or device-scope actions; barriers advance the clocks.
__global__ void sync_atomics(int* hist, int* total, const int* keys) { hirace::Thread __hr_t;
  int t = threadIdx.x;
  atomicAdd_block(hirace::atom(__hr_t, &hist[(*hirace::rd(__hr_t, &(keys[t]), 1u)) % 8], 0u, hirace::kBlockAtomic), 1);
  (__syncthreads(), __hr_t.block_barrier());
  if (__hr_t.block_barrier(__syncthreads_count(t < 8))) atomicAdd(hirace::atom(__hr_t, total, 2u, hirace::kDeviceAtomic), (*hirace::rd(__hr_t, &(hist[t % 8]), 3u)));
  hirace::syncwarp(__hr_t);
}
