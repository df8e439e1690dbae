// Block barriers used as values:
// - __syncthreads_count, __syncthreads_and and __syncthreads_or with predicates that
//   read shared memory, their results stored and combined;
// - __syncthreads_or as a loop condition (iterate until no thread changes anything),
//   with a plain __syncthreads inside the loop body;
// - __syncthreads in both branches' common path after divergent shared writes.

__global__ void barrier_values(const int* in, int* stats) {
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    int big = __syncthreads_count(s[t] > 50);
    int all_small = __syncthreads_and(s[(t + 1) % blockDim.x] < 95);
    int any_huge = __syncthreads_or(s[t] > 98);
    if (t == 0) {
        stats[4 * blockIdx.x] = big;
        stats[4 * blockIdx.x + 1] = all_small;
        stats[4 * blockIdx.x + 2] = any_huge;
    }
    if (__syncthreads_or(s[t] == 0) && t == 1) stats[4 * blockIdx.x + 3] = 1 + s[0];
}

// Propagate the block maximum leftwards-to-rightwards until nothing changes.
__global__ void propagate_max(const int* in, int* out, int* rounds) {
    __shared__ int cur[64];
    __shared__ int next[64];
    int t = threadIdx.x;
    int n = blockDim.x;
    cur[t] = in[blockIdx.x * n + t];
    int changed = 1;
    int r = 0;
    while (__syncthreads_or(changed)) {
        int m = cur[t] > cur[(t + n - 1) % n] ? cur[t] : cur[(t + n - 1) % n];
        changed = m != cur[t];
        next[t] = m;
        __syncthreads();
        cur[t] = next[t];
        ++r;
    }
    out[blockIdx.x * n + t] = cur[t];
    if (t == 0) rounds[blockIdx.x] = r;
}
