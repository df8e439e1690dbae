// Message passing through a libcu++ atomic ticket (docs/semantics.md 1.6):
// the last block to take a ticket reads every block's partial result.
//
// libcu_last_block_relaxed (4 blocks): thread 0 of each block writes part[b]
//   [MW], then takes a ticket with a relaxed fetch_add; the block that draws
//   the last ticket reads every part[i] [MR]. A relaxed atomic without fences
//   orders nothing: read-write race [MW]-[MR].
// With memory_order_acq_rel on the ticket, or release and acquire fences
// around a relaxed ticket, it is race-free in docs/semantics.md 1.6, but the
// runtime does not model message passing (docs/fsm.md, "What the table does
// not model"): those cases are in tests/test_libcu.py, not here.
#include <cuda/atomic>

using ticket_counter = cuda::atomic<unsigned, cuda::thread_scope_device>;

__global__ void libcu_last_block_relaxed(int *part, ticket_counter *count, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;  // [MW]
        unsigned ticket = count[0].fetch_add(1u, cuda::memory_order_relaxed);
        if (ticket == gridDim.x - 1) {
            int sum = 0;
            for (unsigned i = 0; i < gridDim.x; ++i)
                sum += part[i];  // [MR]
            out[0] = sum;
        }
    }
}
