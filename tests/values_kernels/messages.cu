// Message passing under the values engine (docs/engines.md, "Messages").
//
// blocks_fence_ticket: each block's thread 0 writes its slot of part, then
//   __threadfence() and a relaxed atomicAdd on a ticket; the block that draws
//   the last ticket reads every slot. Race-free (docs/semantics.md 1.6): the
//   fence then the atomic release, the observing atomic acquires.
// warps_fence_flag: in one block, lane 0 of warp 0 writes data, fences and
//   sets a flag with atomicExch; lane 0 of warp 1 spins on the flag with
//   atomicAdd(flag, 0), then reads data. Race-free in the same way, between
//   two warps of one barrier interval.
// blocks_no_fence: blocks_fence_ticket without the fence: a relaxed atomic
//   orders nothing, so the reads race with the other blocks' writes.

__global__ void blocks_fence_ticket(int *part, unsigned *ticket, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = 10 * (int)blockIdx.x + 1;
        __threadfence();
        if (atomicAdd(ticket, 1u) == gridDim.x - 1) {
            int sum = 0;
            for (unsigned i = 0; i < gridDim.x; ++i)
                sum += part[i];
            out[0] = sum;
        }
    }
}

__global__ void warps_fence_flag(int *data, int *flag, int *out)
{
    if (threadIdx.x == 0) {
        data[0] = 42;
        __threadfence();
        atomicExch(flag, 1);
    } else if (threadIdx.x == 32) {
        while (atomicAdd(flag, 0) == 0) {
        }
        out[0] = data[0];
    }
}

__global__ void blocks_no_fence(int *part, unsigned *ticket, int *out)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = 10 * (int)blockIdx.x + 1;
        if (atomicAdd(ticket, 1u) == gridDim.x - 1) {
            int sum = 0;
            for (unsigned i = 0; i < gridDim.x; ++i)
                sum += part[i];
            out[0] = sum;
        }
    }
}

// blocks_fence_total: blocks_fence_ticket with the total written over
//   part[0], as threadFenceReduction does: launched again on its own results,
//   block 0 changes part[0] back to its part and the last block writes the
//   total that part[0] held when the launch began.
__global__ void blocks_fence_total(int *part, unsigned *ticket)
{
    if (threadIdx.x == 0) {
        part[blockIdx.x] = 10 * (int)blockIdx.x + 1;
        __threadfence();
        if (atomicAdd(ticket, 1u) == gridDim.x - 1) {
            int sum = 0;
            for (unsigned i = 0; i < gridDim.x; ++i)
                sum += part[i];
            part[0] = sum;
        }
    }
}
