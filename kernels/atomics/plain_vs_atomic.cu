// Plain accesses against atomics (semantics.md 1: a plain action and an atomic
// conflict unless both are reads, and an atomic is never a read).
//
// atom_plain_vs_atomic (1 block of 64): every thread does atomicAdd on c[0] [PA0]
//   and atomicAdd_block on c[1] [PA1]; thread 0 plain-reads c[0] [PR] and thread 1
//   plain-writes c[1] [PW], with no barrier.  The atomics of the other 63
//   threads are unordered with them: atomic-plain races [PA0]-[PR] and
//   [PA1]-[PW] (global).  The reader's/writer's own atomic is ordered by program
//   order.
// atom_barrier_then_read: atomics by every thread on its block's two counters,
//   __syncthreads, then every thread plain-reads them: each atomic on a counter
//   is by a thread of the reader's block and happens-before each read:
//   race-free.
// atom_plain_vs_atomic must be launched with one block (out[0] is written by
// thread 0 of every block).

__global__ void atom_plain_vs_atomic(int *c, int *out)
{
    int t = threadIdx.x;
    atomicAdd(&c[0], 1);                              // [PA0]
    atomicAdd_block(&c[1], 1);                        // [PA1]
    if (t == 0)
        out[0] = c[0];                                // [PR]
    if (t == 1)
        c[1] = 0;                                     // [PW]
}

__global__ void atom_barrier_then_read(int *c, int *out)
{
    int t = threadIdx.x;
    int b = blockIdx.x;
    atomicAdd_block(&c[2 * b], t);
    atomicAdd(&c[2 * b + 1], 1);
    __syncthreads();
    out[b * blockDim.x + t] = c[2 * b] + c[2 * b + 1];
}
