// Shared-memory tree reduction, correct and with one __syncthreads missing.
//
// reduce_ok: s[t] = in[..]; barrier; then log2(n) steps, each followed by a
//   barrier that every thread executes.  In the step with stride st, thread t < st
//   reads s[t + st] (indices in [st, 2st)) and reads/writes s[t] (indices in
//   [0, st)): the two index sets are disjoint and s[t] is touched only by t, so
//   there is no conflict within a step; steps are ordered by the barriers.
//   Race-free.  Needs blockDim.x a power of two <= 256.
// reduce_missing_sync: the barrier after the initial store is missing.  In the
//   first step (st = n/2) thread t < n/2 reads s[t + n/2] [RO], which thread
//   t + n/2 wrote in [RW] with nothing in between: read-write race [RW]-[RO].
//   Everything after the first loop barrier is ordered after all [RW] writes, and
//   the s[t] accesses of the compound line are by the slot's owner, so
//   [RW]-[RO] is the only racing line pair.

__global__ void reduce_ok(const int *in, int *out)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st /= 2) {
        if (t < st) {
            int other = s[t + st];
            s[t] += other;
        }
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

__global__ void reduce_missing_sync(const int *in, int *out)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];        // [RW]
    // missing: __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st /= 2) {
        if (t < st) {
            int other = s[t + st];                 // [RO]
            s[t] += other;
        }
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}
