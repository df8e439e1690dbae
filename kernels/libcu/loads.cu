// Atomic loads (docs/semantics.md 1.2, 1.5): a relaxed cuda::atomic load is
// a read, so it conflicts with no plain read and no other load, and an
// atomic, so it conflicts with no atomic whose scope covers both threads.
//
// load_vs_plain_read (4 blocks, race-free): every thread loads a[0] through
//   a cast `cuda::atomic<int>*` (the relaxed-load idiom of graph codes) and
//   reads a[0] plainly; nothing writes it.
// load_vs_fetch_add (4 blocks, race-free): even threads load a[0], odd
//   threads fetch_add to it, both of device scope.
// load_vs_plain_write (1 block): thread 0 writes a[0] plainly [PW]; thread
//   33 loads it [LD], no barrier: atomic-plain race [PW]-[LD].
// block_load_vs_device_add (4 blocks): every thread loads a[0] with block
//   scope [BL] and adds to it with device scope [GA]: a block-scope load does
//   not cover another block's add: atomic-plain race [BL]-[GA].
#include <cuda/atomic>

__device__ int relaxed_load(int *p)
{
    return ((cuda::atomic<int> *)p)->load(cuda::memory_order_relaxed);
}

__global__ void load_vs_plain_read(int *a, int *out)
{
    int seen = relaxed_load(&a[0]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = seen + a[0];
}

__global__ void load_vs_fetch_add(int *a, int *out)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> r(a[0]);
    int seen = 0;
    if (threadIdx.x % 2 == 0)
        seen = r.load(cuda::memory_order_relaxed);
    else
        seen = r.fetch_add(1, cuda::memory_order_relaxed);
    out[blockIdx.x * blockDim.x + threadIdx.x] = seen;
}

__global__ void load_vs_plain_write(int *a, int *out)
{
    if (threadIdx.x == 0)
        a[0] = 7;  // [PW]
    if (threadIdx.x == 33)
        out[0] = ((cuda::atomic<int> *)a)->load(cuda::memory_order_relaxed);  // [LD]
}

__global__ void block_load_vs_device_add(int *a, int *out)
{
    cuda::atomic_ref<int, cuda::thread_scope_block> b(a[0]);
    cuda::atomic_ref<int, cuda::thread_scope_device> d(a[0]);
    int seen = b.load(cuda::memory_order_relaxed);  // [BL]
    d.fetch_add(1, cuda::memory_order_relaxed);  // [GA]
    out[blockIdx.x * blockDim.x + threadIdx.x] = seen;
}
