// Atomics on int and unsigned, every operation and scope:
// - atomicAdd, Sub, Min, Max, And, Or, Xor, Inc, Dec, Exch and CAS, in device scope
//   (global counters shared by all blocks), _system scope, and _block scope (on
//   per-block global slots and on shared memory);
// - returned old values used only in order-independent ways (summed atomically);
// - atomics on struct members and on elements reached through pointers.
// All final values are independent of the order in which threads run.

struct Counters {
    int sum;
    unsigned bits;
};

__global__ void atomic_int_ops(const int* in, int* gi, unsigned* gu, Counters* c) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[g];
    atomicAdd(&gi[0], v);
    atomicSub(&gi[1], v);
    atomicMin(&gi[2], v);
    atomicMax(&gi[3], v);
    atomicAnd(&gi[4], ~(1 << (v % 31)));
    atomicOr(&gi[5], 1 << (v % 31));
    atomicXor(&gi[6], v);
    int old = atomicAdd(gi + 7, 1);
    atomicAdd(&gi[8], old);
    atomicExch(&gi[9 + g], v * 2);
    atomicCAS(&gi[9 + g], v * 2, v * 3);
    atomicInc(&gu[0], 1000000u);
    atomicDec(&gu[1], 1000000u);
    atomicInc(&gu[2], 7u);
    atomicAdd(&gu[3], (unsigned)v);
    atomicMin(&gu[4], (unsigned)v);
    atomicMax(&gu[5], (unsigned)v);
    atomicSub(&gu[6], 3u);
    atomicExch(&gu[7], 42u);
    atomicAdd(&c->sum, v);
    atomicOr(&(c + 1)->bits, 1u << (v % 32));
    atomicXor(&c[1].bits, (unsigned)g);
}

__global__ void atomic_scopes(const int* in, int* per_block, unsigned* totals) {
    __shared__ int local_sum;
    __shared__ unsigned local_max;
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    if (t == 0) {
        local_sum = 0;
        local_max = 0u;
    }
    __syncthreads();
    int v = in[g];
    atomicAdd_block(&local_sum, v);
    atomicMax_block(&local_max, (unsigned)v);
    atomicAdd_block(&per_block[3 * blockIdx.x], 1);
    atomicOr_block(&per_block[3 * blockIdx.x + 1], 1 << (t % 31));
    atomicCAS_block(&per_block[3 * blockIdx.x + 2], 0, 1);
    atomicAdd_system(&totals[0], (unsigned)v);
    atomicMin_system(&totals[1], (unsigned)v);
    atomicExch_system(&totals[2], 5u);
    atomicInc_system(&totals[3], 100000u);
    atomicAnd_system(&totals[4], 0xfffffff0u);
    atomicXor_system(&totals[5], 0x1u);
    atomicSub_block(&local_sum, 1);
    __syncthreads();
    if (t == 0) {
        atomicAdd(&totals[6], (unsigned)local_sum);
        atomicMax(&totals[7], local_max);
    }
}

// Histogram: block-scope atomics into shared bins, then one device-scope atomic
// per bin into the global histogram.
__global__ void shared_histogram(const int* in, unsigned* hist, int n, int bins) {
    __shared__ unsigned local[32];
    int t = threadIdx.x;
    if (t < bins) local[t] = 0u;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x)
        atomicAdd_block(&local[in[i] % bins], 1u);
    __syncthreads();
    if (t < bins) atomicAdd(hist + t, local[t]);
}

// Every int operation in every scope, and unsigned atomicInc/atomicDec in every
// scope. Device and system scope act on slots shared by all blocks; block scope
// on this block's own slots (block-scope atomics of different blocks would race).
__global__ void atomic_every_scope(const int* in, int* dev, int* blk, unsigned* udev,
                                   unsigned* ublk) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[g];
    int* b = blk + 9 * blockIdx.x;
    unsigned* ub = ublk + 2 * blockIdx.x;
    atomicAdd(&dev[0], v);
    atomicAdd_block(&b[0], v);
    atomicAdd_system(&dev[1], v);
    atomicSub(&dev[2], v);
    atomicSub_block(&b[1], v);
    atomicSub_system(&dev[3], v);
    atomicExch(&dev[4], 7);
    atomicExch_block(&b[2], 8);
    atomicExch_system(&dev[5], 9);
    atomicMin(&dev[6], v);
    atomicMin_block(&b[3], v);
    atomicMin_system(&dev[7], v);
    atomicMax(&dev[8], v);
    atomicMax_block(&b[4], v);
    atomicMax_system(&dev[9], v);
    atomicAnd(&dev[10], ~(1 << (v % 31)));
    atomicAnd_block(&b[5], ~(1 << (v % 31)));
    atomicAnd_system(&dev[11], ~(1 << (v % 31)));
    atomicOr(&dev[12], 1 << (v % 31));
    atomicOr_block(&b[6], 1 << (v % 31));
    atomicOr_system(&dev[13], 1 << (v % 31));
    atomicXor(&dev[14], v);
    atomicXor_block(&b[7], v);
    atomicXor_system(&dev[15], v);
    atomicCAS(&dev[16], 0, 1);
    atomicCAS_block(&b[8], 0, 1);
    atomicCAS_system(&dev[17], 0, 1);
    atomicInc(&udev[0], 50u);
    atomicInc_block(&ub[0], 50u);
    atomicInc_system(&udev[1], 50u);
    atomicDec(&udev[2], 50u);
    atomicDec_block(&ub[1], 50u);
    atomicDec_system(&udev[3], 50u);
}
