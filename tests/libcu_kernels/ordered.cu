// libcu++ atomics whose memory order decides the verdict (docs/semantics.md
// 1.6), for tests/test_libcu.py. Every kernel is a last-block reduction: each
// block's thread 0 writes part[b] [W], takes a ticket [T], and the block that
// draws the last ticket reads every part[i] [R].
//
// ticket_acq_rel: the ticket is a device-scope fetch_add with acq_rel: each
//   block's ticket releases its write, the last one acquires them all
//   (release sequence): race-free in the semantics.
// ticket_seq_cst: the same with the default order (seq_cst): race-free.
// ticket_release: release only: the last ticket does not acquire: racy.
// ticket_acquire: acquire only: no block releases its write: racy.
// ticket_relaxed: relaxed: racy.
// ticket_block_scope: acq_rel, but of block scope: it synchronizes one
//   block only, and the tickets of two blocks race with each other: racy.
// ticket_fences: a relaxed ticket between a device-scope release fence and an
//   acquire fence (cuda::atomic_thread_fence): race-free.
//
// Each line an expectation reads is tagged `// [TAG] ACTION ORDER`: the
// action and memory order the instrumenter must give the access there.
#include <cuda/atomic>

using ticket = cuda::atomic<unsigned, cuda::thread_scope_device>;
using block_ticket = cuda::atomic<unsigned, cuda::thread_scope_block>;

__device__ void gather(int *part, int *out)
{
    int sum = 0;
    for (unsigned i = 0; i < gridDim.x; ++i)
        sum += part[i];  // [R] R
    out[0] = sum;
}

__global__ void ticket_acq_rel(int *part, ticket *count, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;  // [W] W
        if (count[0].fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1)  // [T] GA acq_rel
            gather(part, out);
    }
}

__global__ void ticket_seq_cst(int *part, ticket *count, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;  // [W] W
        if (count[0]++ == gridDim.x - 1)  // [T] GA seq_cst
            gather(part, out);
    }
}

__global__ void ticket_release(int *part, ticket *count, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;  // [W] W
        if (count[0].fetch_add(1u, cuda::memory_order_release) == gridDim.x - 1)  // [T] GA release
            gather(part, out);
    }
}

__global__ void ticket_acquire(int *part, ticket *count, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;  // [W] W
        if (count[0].fetch_add(1u, cuda::std::memory_order_acquire) == gridDim.x - 1)  // [T] GA acquire
            gather(part, out);
    }
}

__global__ void ticket_relaxed(int *part, ticket *count, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;  // [W] W
        if (count[0].fetch_add(1u, cuda::memory_order_relaxed) == gridDim.x - 1)  // [T] GA relaxed
            gather(part, out);
    }
}

__global__ void ticket_block_scope(int *part, block_ticket *count, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;  // [W] W
        if (count[0].fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1)  // [T] BA acq_rel
            gather(part, out);
    }
}

__global__ void ticket_fences(int *part, unsigned *count, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;  // [W] W
        cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> r(count[0]);
        if (r.fetch_add(1u, cuda::memory_order_relaxed) == gridDim.x - 1) {  // [T] GA relaxed
            cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
            gather(part, out);
        }
    }
}
