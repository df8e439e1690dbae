// A last-block reduction in the shape of the CUDA samples' fence reduction,
// counter reset included (docs/semantics.md 1.6). Each block's thread 0
// writes its partial result part[b], fences, and takes a ticket with a
// relaxed atomicInc; it tells its block through shared memory whether it drew
// the last one. After a barrier, the last block's thread 0 sums the parts and
// its thread 1 sets the counter back to 0 for the next launch.
//
// last_block_reset: race-free. The fence and the ticket pass each part to
//   the last block (release, then the legacy idiom's acquire); the counter's
//   reset is ordered after every other block's increment because the last
//   block's own atomicInc observed them all (observation order), and the
//   barrier carries that to thread 1.
// last_block_reset_unfenced: no fence: the parts race with the sum.
// last_block_reset_plain: a plain increment for a ticket: the increments race.

__device__ void finish(int *part, unsigned *count, int *out, bool last)
{
    if (last && threadIdx.x == 0) {
        int sum = 0;
        for (unsigned i = 0; i < gridDim.x; ++i)
            sum += part[i];
        out[0] = sum;
    }
    if (last && threadIdx.x == 1)
        *count = 0;
}

__global__ void last_block_reset(int *part, unsigned *count, int *out)
{
    __shared__ bool am_last;
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;
        __threadfence();
        unsigned ticket = atomicInc(count, gridDim.x);
        am_last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    finish(part, count, out, am_last);
}

__global__ void last_block_reset_unfenced(int *part, unsigned *count, int *out)
{
    __shared__ bool am_last;
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;
        unsigned ticket = atomicInc(count, gridDim.x);
        am_last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    finish(part, count, out, am_last);
}

__global__ void last_block_reset_plain(int *part, unsigned *count, int *out)
{
    __shared__ bool am_last;
    if (threadIdx.x == 0) {
        part[blockIdx.x] = (int)blockIdx.x + 1;
        __threadfence();
        unsigned ticket = (*count)++;
        am_last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    finish(part, count, out, am_last);
}
