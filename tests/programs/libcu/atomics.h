// Element access of relax.cu, in the three styles of graph codes that use
// libcu++ (hirace's own minimal reproduction of what Indigo3's codes need):
// PLAIN: plain ints (racy); CAST: ints read and written through
// `cuda::atomic<int>*` casts with relaxed order, in a user header;
// default: arrays of cuda::atomic<int> (their members are used in relax.cu).
#pragma once
#ifdef PLAIN
typedef int data_type;
__device__ inline int get(data_type* p) { return *p; }
__device__ inline void put(data_type* p, int v) { *p = v; }
#else
#include <cuda/atomic>
#ifdef CAST
typedef int data_type;
__device__ inline int get(data_type* p)
{
  return ((cuda::atomic<int>*)p)->load(cuda::memory_order_relaxed);
}
__device__ inline void put(data_type* p, int v)
{
  ((cuda::atomic<int>*)p)->store(v, cuda::memory_order_relaxed);
}
// Lowers *p to v; true if it did (a compare-exchange loop through a cast).
__device__ inline bool lower(cuda::atomic<int>* p, int v)
{
  int old = p->load(cuda::memory_order_relaxed);
  while (v < old) {
    if (p->compare_exchange_strong(old, v)) return true;
  }
  return false;
}
#else
typedef cuda::atomic<int> data_type;
#endif
#endif
