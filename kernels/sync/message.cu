// Message passing through an atomic counter (docs/semantics.md 1.6): the last
// block to take a ticket reads every block's partial result.
//
// last_block_no_fence (4 blocks): thread 0 of each block writes part[b] [NW],
//   then takes a ticket with a relaxed atomicInc and no __threadfence before
//   it; the block that draws the last ticket reads every part[i] [NR].  A
//   relaxed atomic without a fence orders nothing: read-write race [NW]-[NR].
// With __threadfence() between the write and the ticket it is race-free in
// docs/semantics.md 1.6, but the runtime does not model message passing
// (docs/fsm.md, "What the table does not model"): that case is in
// tests/test_sync_constructs.py, not here.

__global__ void last_block_no_fence(int *part, unsigned *count, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;       // [NW]
        unsigned ticket = atomicInc(count, gridDim.x);
        if (ticket == gridDim.x - 1) {
            int sum = 0;
            for (unsigned i = 0; i < gridDim.x; ++i)
                sum += part[i];                       // [NR]
            out[0] = sum;
        }
    }
}
