// A device helper over libcu++'s atomics, in a header of its own (as a
// suite's driver header includes <cuda/atomic>).
#ifndef COUNTER_H
#define COUNTER_H
#include <cuda/atomic>

__device__ inline int bump(int* counter) {
  cuda::atomic_ref<int, cuda::thread_scope_device> ref(*counter);
  return ref.fetch_add(1, cuda::memory_order_relaxed);
}
#endif
