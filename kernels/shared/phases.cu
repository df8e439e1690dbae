// Barrier-separated phases in shared memory: race-free.
//
// Each phase either writes only the thread's own slot s[t] or reads other
// threads' slots, and consecutive phases are separated by __syncthreads, which
// all threads of the block execute.  Every cross-thread pair of accesses to one
// slot is therefore in different phases and ordered by the barrier between them
// (semantics.md 1).  Phase 5 is a compound assignment on the own slot (a read and a
// write by the owner only).  Launch with blockDim.x <= 128.

__global__ void phases_shared(const int *in, int *out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int n = blockDim.x;
    int i = blockIdx.x * n + t;
    s[t] = in[i];                                   // phase 1: write own
    __syncthreads();
    int v = s[(t + 1) % n] + s[(t + n - 1) % n];    // phase 2: read neighbours
    __syncthreads();
    s[t] = v;                                       // phase 3: write own
    __syncthreads();
    v = s[n - 1 - t];                               // phase 4: read mirror
    __syncthreads();
    s[t] += v;                                      // phase 5: own read + write
    __syncthreads();
    out[i] = s[(t + 5) % n];                        // phase 6: read
}
