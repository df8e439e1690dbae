// Race-free in docs/semantics.md section 1, reported by the runtime, which
// models neither warp barriers over masks that are not its lane groups nor
// message passing (docs/fsm.md, "What the table does not model"); the launch
// says so with a notice. And one case the lane groups make exact.
//
// masked_with_partner: lane 0 writes s[0]; lanes 0 and 1 pass __syncwarp(0x3)
//   together; lane 1 reads s[0]. The barrier orders the pair (1.3). 0x3 is
//   the only aligned mask in this file, so the runtime's lane groups are
//   pairs of lanes and this barrier is exact.
// masked_strided: the same with lanes 0 and 2 and __syncwarp(0x5), which is
//   no lane group: reported, with the notice.
// last_block_fence: each block's thread 0 writes part[b], __threadfence(),
//   then a relaxed atomicInc; the block with the last ticket reads all parts.
//   The fence before the atomic releases and the observing device-scope
//   atomic acquires (1.6, the CUDA guide's idiom).
// last_block_barrier: every thread writes its slot of part, the block
//   synchronises, thread 0 fences and takes the ticket into shared memory,
//   and after a second barrier every thread of the last block reads one slot
//   of every block: a barrier orders the slots before thread 0's release,
//   and a barrier passes what thread 0 acquired to its block.
// The CPU runtime passes both messages (docs/fsm.md, "Message passing in the
// runtime").

__global__ void masked_with_partner(int *out)
{
    __shared__ int s[32];
    int lane = threadIdx.x % 32;
    if (lane == 0)
        s[0] = 1;
    if (lane < 2)
        __syncwarp(0x3u);
    if (lane == 1)
        out[0] = s[0];
}

__global__ void masked_strided(int *out)
{
    __shared__ int s[32];
    int lane = threadIdx.x % 32;
    if (lane == 0)
        s[0] = 1;
    if (lane == 0 || lane == 2)
        __syncwarp(0x5u);
    if (lane == 2)
        out[0] = s[0];
}

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
