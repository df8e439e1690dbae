// Every form of a libcu++ atomic operation is one atomic action on its object
// (docs/semantics.md 1.2): members, operators, the conversion to the value,
// through a cast pointer (Indigo3's atomicRead/atomicWrite), through
// cuda::atomic_ref and cuda::std::atomic(_ref).
//
// libcu_forms_cross_block (4 blocks, race-free): every thread loads, stores,
//   exchanges, compare-exchanges and increments element 0 of each array with
//   device- or system-scope atomics in every form; nothing else touches them.
// libcu_cast_vs_plain (1 block): thread 0 stores to a[0] through a
//   `cuda::atomic<int>*` cast of `a` [CS]; thread 1 reads a[0] plainly [CR]:
//   an atomic and a plain access conflict: atomic-plain race [CS]-[CR].
// libcu_ref_block_cross_block (4 blocks): every thread adds to a[0] through a
//   block-scope cuda::atomic_ref [RB]: block scope does not cover two blocks:
//   atomic-plain race [RB]-[RB].
// libcu_ref_then_plain (1 block): thread 0 increments a[0] through a
//   device-scope atomic_ref [RA]; thread 33 writes it plainly [RW], no
//   barrier: atomic-plain race [RA]-[RW].
#include <cuda/atomic>

using counter = cuda::atomic<int>;
using std_counter = cuda::std::atomic<int>;

__device__ int atomic_read(int *p)
{
    return ((cuda::atomic<int> *)p)->load(cuda::memory_order_relaxed);
}

__device__ void atomic_write(int *p, int v)
{
    ((cuda::atomic<int> *)p)->store(v, cuda::memory_order_relaxed);
}

__global__ void libcu_forms_cross_block(counter *c, std_counter *s, int *a)
{
    int seen = c[0].load();
    c[0].store(seen + 1);
    c[0] = 3;
    c[0] += 2;
    ++c[0];
    int expected = 5;
    c[0].compare_exchange_strong(expected, 6);
    int now = c[0];
    s[0].exchange(now);
    s[0]++;
    s[0] |= 4;
    atomic_write(a, atomic_read(a) + 1);
    cuda::atomic_ref<int, cuda::thread_scope_device>(a[1]).fetch_add(1);
    cuda::std::atomic_ref<int> r(a[2]);
    r.fetch_sub(1);
    r = 7;
}

__global__ void libcu_cast_vs_plain(int *a, int *out)
{
    if (threadIdx.x == 0)
        ((cuda::atomic<int> *)a)->store(1, cuda::memory_order_relaxed);  // [CS]
    if (threadIdx.x == 1)
        out[0] = a[0];  // [CR]
}

__global__ void libcu_ref_block_cross_block(int *a)
{
    cuda::atomic_ref<int, cuda::thread_scope_block> r(a[0]);
    r.fetch_add(1);  // [RB]
}

__global__ void libcu_ref_then_plain(int *a)
{
    if (threadIdx.x == 0)
        cuda::atomic_ref<int, cuda::thread_scope_device>(a[0])++;  // [RA]
    if (threadIdx.x == 33)
        a[0] = 5;  // [RW]
}
