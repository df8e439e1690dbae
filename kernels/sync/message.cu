// Message passing through an atomic counter (docs/semantics.md 1.6): the last
// block to take a ticket reads every block's partial result.
//
// last_block_no_fence (4 blocks): thread 0 of each block writes part[b] [NW],
//   then takes a ticket with a relaxed atomicInc and no __threadfence before
//   it; the block that draws the last ticket reads every part[i] [NR].  A
//   relaxed atomic without a fence orders nothing: read-write race [NW]-[NR].
// With __threadfence() between the write and the ticket it is race-free
// (docs/semantics.md 1.6), and the CPU runtime passes the message: that case
// is last_block_fence, at the end (the values engine leaves the conflicts a
// message may order unreported, counted: docs/engines.md).

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

// Racy twins of the fenced last-block reduction, each a race in
// docs/semantics.md 1.6 whatever the runtime models (4 blocks):
// last_block_block_fence: __threadfence_block() before the ticket: a
//   block-scope fence releases to its own block only: race [BW]-[BR].
// last_block_fence_after: the fence comes after the ticket, so the ticket
//   carries nothing of the write: race [AW]-[AR].
// last_block_unobserved: every other block fences and takes a ticket, but
//   the reader, the last block by index, takes none: it never observes the
//   others' releases: race [UW]-[UR].

__global__ void last_block_block_fence(int *part, unsigned *count, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;       // [BW]
        __threadfence_block();
        unsigned ticket = atomicInc(count, gridDim.x);
        if (ticket == gridDim.x - 1) {
            int sum = 0;
            for (unsigned i = 0; i < gridDim.x; ++i)
                sum += part[i];                       // [BR]
            out[0] = sum;
        }
    }
}

__global__ void last_block_fence_after(int *part, unsigned *count, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;       // [AW]
        unsigned ticket = atomicInc(count, gridDim.x);
        __threadfence();
        if (ticket == gridDim.x - 1) {
            int sum = 0;
            for (unsigned i = 0; i < gridDim.x; ++i)
                sum += part[i];                       // [AR]
            out[0] = sum;
        }
    }
}

__global__ void last_block_unobserved(int *part, unsigned *count, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;       // [UW]
        if (blockIdx.x != gridDim.x - 1) {
            __threadfence();
            atomicInc(count, gridDim.x);
        } else {
            int sum = 0;
            for (unsigned i = 0; i < gridDim.x; ++i)
                sum += part[i];                       // [UR]
            out[0] = sum;
        }
    }
}

// last_block_no_barrier: every thread writes its slot of part, thread 0
// fences and takes the ticket into shared memory, and after a barrier every
// thread of the last block reads one slot of every block. With a barrier
// before the fence it is race-free (tests/test_sync_constructs.py); without,
// only thread 0's own slot is released: the other slots race [SW]-[SR].

__global__ void last_block_no_barrier(int *part, unsigned *count, int *out)
{
    __shared__ bool last;
    part[blockIdx.x * blockDim.x + threadIdx.x] = (int)threadIdx.x;  // [SW]
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicInc(count, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (last) {
        int sum = 0;
        for (unsigned i = 0; i < gridDim.x; ++i)
            sum += part[i * blockDim.x + threadIdx.x];  // [SR]
        out[threadIdx.x] = sum;
    }
}

// The race-free counterparts (docs/semantics.md 1.6; the CPU runtime passes
// both messages: docs/fsm.md, "Message passing in the runtime"):
// last_block_fence: each block's thread 0 writes part[b], __threadfence(),
//   then a relaxed atomicInc; the block with the last ticket reads all parts.
//   The fence before the atomic releases and the observing device-scope
//   atomic acquires (the CUDA guide's idiom).
// last_block_barrier: every thread writes its slot of part, the block
//   synchronises, thread 0 fences and takes the ticket into shared memory,
//   and after a second barrier every thread of the last block reads one slot
//   of every block: a barrier orders the slots before thread 0's release,
//   and a barrier passes what thread 0 acquired to its block.

__global__ void last_block_fence(int *part, unsigned *count, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;
        __threadfence();
        unsigned ticket = atomicInc(count, gridDim.x);
        if (ticket == gridDim.x - 1) {
            int sum = 0;
            for (unsigned i = 0; i < gridDim.x; ++i)
                sum += part[i];
            out[0] = sum;
        }
    }
}

__global__ void last_block_barrier(int *part, unsigned *count, int *out)
{
    __shared__ bool last;
    part[blockIdx.x * blockDim.x + threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicInc(count, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (last) {
        int sum = 0;
        for (unsigned i = 0; i < gridDim.x; ++i)
            sum += part[i * blockDim.x + threadIdx.x];
        out[threadIdx.x] = sum;
    }
}
