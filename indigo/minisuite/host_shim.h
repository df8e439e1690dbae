// Host-only stand-ins for the CUDA built-ins the mini-suite uses, so that g++
// can compile a code (its kernel included, but never run) and check its
// serial_code and verify_result without CUDA:
//
//   g++ -x c++ -include host_shim.h CODE.cu -o check && ./check GRAPH.egr
//
// It defines INDIGO_HOST_ONLY, which makes indigo_cuda.h skip <cuda_runtime.h>
// and use its host-only main. The stand-ins are sequential and are never
// called: they exist only so the kernels type-check.

#ifndef INDIGO_HOST_SHIM_H
#define INDIGO_HOST_SHIM_H

#define INDIGO_HOST_ONLY 1

#include <algorithm>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static

struct indigo_uint3 {
  unsigned int x, y, z;
};
inline indigo_uint3 threadIdx, blockIdx, blockDim, gridDim;

using std::max;
using std::min;

inline void __syncthreads() {}
inline void __syncwarp(unsigned int = 0xffffffffu) {}

template <typename T> T atomicAdd(T* p, T v) { T old = *p; *p = old + v; return old; }
template <typename T> T atomicAdd_block(T* p, T v) { T old = *p; *p = old + v; return old; }
template <typename T> T atomicMax(T* p, T v) { T old = *p; *p = std::max(old, v); return old; }
template <typename T> T atomicMax_block(T* p, T v) { T old = *p; *p = std::max(old, v); return old; }
template <typename T> T atomicMin(T* p, T v) { T old = *p; *p = std::min(old, v); return old; }
template <typename T> T atomicMin_block(T* p, T v) { T old = *p; *p = std::min(old, v); return old; }
template <typename T> T __shfl_down_sync(unsigned int, T v, int) { return v; }
inline unsigned int __ballot_sync(unsigned int, int p) { return p ? 1u : 0u; }
inline int __popc(unsigned int x) { return __builtin_popcount(x); }

#endif  // INDIGO_HOST_SHIM_H
