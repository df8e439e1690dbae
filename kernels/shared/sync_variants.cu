// __syncthreads_count / __syncthreads_or / __syncthreads_and are block barriers
// too (semantics.md 1): race-free.
//
// Each thread writes its own slot, then the block passes __syncthreads_count;
// the neighbour read after it is ordered.  The slot is rewritten by its owner
// only after __syncthreads_or, and read by the mirror thread after
// __syncthreads_and.  Every cross-thread pair of accesses to one slot is
// separated by one of these barriers.

__global__ void sync_variants_ok(const int *in, int *out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int n = blockDim.x;
    int i = blockIdx.x * n + t;
    s[t] = in[i];
    int big = __syncthreads_count(in[i] > 50);
    int v = s[(t + 1) % n];
    int any = __syncthreads_or(v > 90);
    s[t] = v + big;
    int all = __syncthreads_and(v >= 0);
    out[i] = s[n - 1 - t] + any + all;
}
