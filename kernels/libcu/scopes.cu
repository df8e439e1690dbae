// libcu++ atomic objects (docs/semantics.md 1.2): an operation on a
// cuda::atomic is one atomic action of the class's thread scope.
//
// libcu_device_cross_block (4 blocks): every thread fetch_adds one counter of
//   the default (system) scope and one of device scope, relaxed and seq_cst:
//   device/system atomics never conflict with each other: race-free.
// libcu_block_cross_block (4 blocks): every thread fetch_adds one counter of
//   block scope [LB]: block-scope atomics of different blocks conflict:
//   atomic-plain race [LB]-[LB].
// libcu_block_same_block (4 blocks): the same block-scope operations on each
//   block's own counter: within a block they never conflict: race-free.
// libcu_thread_scope (1 block): every thread increments one counter of thread
//   scope [LT], which is atomic only to its own thread: to the others it is a
//   plain read and write: read-write and write-write races [LT]-[LT].
#include <cuda/atomic>

using system_counter = cuda::atomic<int>;
using device_counter = cuda::atomic<int, cuda::thread_scope_device>;
using block_counter = cuda::atomic<int, cuda::thread_scope_block>;
using thread_counter = cuda::atomic<int, cuda::thread_scope_thread>;

__global__ void libcu_device_cross_block(system_counter *sys, device_counter *dev)
{
    sys[0].fetch_add(1, cuda::memory_order_relaxed);
    dev[0].fetch_add(1);
    dev[0].fetch_max((int)threadIdx.x, cuda::memory_order_relaxed);
}

__global__ void libcu_block_cross_block(block_counter *count)
{
    count[0].fetch_add(1, cuda::memory_order_relaxed);  // [LB]
}

__global__ void libcu_block_same_block(block_counter *count)
{
    count[blockIdx.x].fetch_add(1, cuda::memory_order_relaxed);
    count[blockIdx.x].fetch_min((int)threadIdx.x);
}

__global__ void libcu_thread_scope(thread_counter *count)
{
    count[0]++;  // [LT]
}
