// A ticket counter that the block drawing the last ticket sets back to 0 for
// the next launch, as last-block reductions do (docs/semantics.md 1.6,
// "Observation order"). 4 blocks; thread 0 of each takes the ticket.
//
// ticket_reset: the ticket is a relaxed atomicAdd, the reset a plain store
//   by the thread that drew the last ticket. Its atomic read the chain of
//   every other block's increment, so they precede its later store:
//   race-free, with no fence (the fence is for the data, not the counter).
// ticket_reset_plain: the ticket taken with a plain increment: the blocks'
//   plain read-modify-writes race with each other [PI]-[PI] (and with the
//   reset [PS]).
// ticket_reset_early: the last block by index resets the counter before it
//   takes its ticket: no atomic of its own observed the others' increments
//   yet: atomic-plain race [EA]-[ES].

__global__ void ticket_reset(unsigned *count, unsigned *last)
{
    if (threadIdx.x == 0) {
        unsigned ticket = atomicAdd(count, 1u);
        if (ticket == gridDim.x - 1) {
            *count = 0;
            *last = blockIdx.x;
        }
    }
}

__global__ void ticket_reset_plain(unsigned *count, unsigned *last)
{
    if (threadIdx.x == 0) {
        unsigned ticket = (*count)++;                 // [PI]
        if (ticket == gridDim.x - 1) {
            *count = 0;                               // [PS]
            *last = blockIdx.x;
        }
    }
}

__global__ void ticket_reset_early(unsigned *count, unsigned *last)
{
    if (threadIdx.x == 0) {
        if (blockIdx.x == gridDim.x - 1)
            *count = 0;                               // [ES]
        unsigned ticket = atomicAdd(count, 1u);       // [EA]
        if (ticket == gridDim.x - 1)
            *last = blockIdx.x;
    }
}
