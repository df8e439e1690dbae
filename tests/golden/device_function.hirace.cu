#include "hirace_runtime.cuh"
#line 1 "device_function.cu"
// A device function gets an instrumented overload taking the thread context;
// the kernel calls the overload, host code keeps the original.
struct Pair { int key; float value; };

__device__ float weight(const Pair* p, int i) { return p[i].value * p->key; }
#line 5 "device_function.cu"
__device__ float weight(hirace::Thread& __hr_t, const Pair* p, int i) { return (*hirace::rd(__hr_t, &(p[i].value), 2u)) * (*hirace::rd(__hr_t, &(p->key), 3u)); }
#line 5 "device_function.cu"


__global__ void apply(Pair* pairs, float* out) { hirace::Thread __hr_t;
  int i = threadIdx.x;
  (*hirace::wr(__hr_t, &(out[i]), 0u)) = weight(__hr_t, pairs, i);
  (*hirace::wr(__hr_t, &(pairs[i].key), 1u)) = 0;
}
