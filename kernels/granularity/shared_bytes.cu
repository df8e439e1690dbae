// Byte granularity in shared memory.
//
// gran_shared_char_ok: thread t writes sc[t] (neighbouring bytes of one word),
//   barrier, reads sc[t ^ 1] (the neighbour's byte): the only cross-thread pairs
//   are separated by the barrier: race-free.
// gran_shared_char_race: thread t writes sc[t / 2] [SCW], so threads 2k and 2k+1
//   write one byte: write-write race [SCW]-[SCW].  After the barrier, thread t
//   reads sc[t / 2], ordered.  Launch with blockDim.x <= 128.

__global__ void gran_shared_char_ok(char *out)
{
    __shared__ char sc[128];
    int t = threadIdx.x;
    sc[t] = (char)t;
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = sc[t ^ 1];
}

__global__ void gran_shared_char_race(char *out)
{
    __shared__ char sc[64];
    int t = threadIdx.x;
    sc[t / 2] = (char)t;                              // [SCW]
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = sc[t / 2];
}
