// Block-wide and warp-wide votes.
__global__ void count_positive(const int* v, int* counts, int* all_flags, int* any_flags) {
    int x = v[blockIdx.x * blockDim.x + threadIdx.x];
    int count = __syncthreads_count(x > 0);
    int all = __syncthreads_and(x > 0);
    int any = __syncthreads_or(x > 0);
    if (threadIdx.x == 0) {
        counts[blockIdx.x] = count;
        all_flags[blockIdx.x] = all;
        any_flags[blockIdx.x] = any;
    }
}

// Per warp: the ballot of odd values, its population count, and any/all.
__global__ void warp_votes(const int* v, unsigned* ballots, int* popcounts, int* any_all) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int odd = v[i] & 1;
    unsigned ballot = __ballot_sync(0xffffffffu, odd);
    int any = __any_sync(0xffffffffu, odd);
    int all = __all_sync(0xffffffffu, odd);
    if (threadIdx.x % 32 == 0) {
        int w = i / 32;
        ballots[w] = ballot;
        popcounts[w] = __popc(ballot);
        any_all[2 * w] = any;
        any_all[2 * w + 1] = all;
    }
}

// A block of 48 threads: its second warp has only 16 lanes.
__global__ void partial_warp_ballot(unsigned* out) {
    unsigned b = __ballot_sync(0xffffffffu, 1);
    if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = b;
}
