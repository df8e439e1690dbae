// semantics.md 2, trap 1: a plain read, a block barrier, then block-scope atomics by
// two threads of the block.  Race-free.
//
// trap1_read_barrier_ba: thread 0 plain-reads c[0]; __syncthreads; threads 0 and
//   1 do atomicAdd_block on c[0].  The read happens-before both atomics (barrier
//   edge, and program order for thread 0); the two atomics are of one block and
//   do not conflict.  An FSM that, seeing the second atomic (by thread 1,
//   unordered with the first atomic by thread 0), forgets that the read was
//   ordered before both and calls it a read/atomic race is wrong.
// trap1_other_reader: the same with the read by thread 40 (another warp) and the
//   atomics by threads 0 and 1 (neither of them is the reader).  Race-free.
// Launch with one block.

__global__ void trap1_read_barrier_ba(int *c, int *out)
{
    int t = threadIdx.x;
    if (t == 0)
        out[0] = c[0];
    __syncthreads();
    if (t == 0 || t == 1)
        atomicAdd_block(&c[0], 1);
}

__global__ void trap1_other_reader(int *c, int *out)
{
    int t = threadIdx.x;
    if (t == 40)
        out[0] = c[0];
    __syncthreads();
    if (t == 0 || t == 1)
        atomicAdd_block(&c[0], 1);
}
