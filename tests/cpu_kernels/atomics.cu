// Every atomic's return value and effect, on the types CUDA offers.
__global__ void atomic_ops(int* i, unsigned* u, unsigned long long* ull, long long* ll,
                          float* f, double* d, int* olds) {
    if (threadIdx.x != 0) return;
    olds[0] = atomicAdd(&i[0], 5);
    olds[1] = atomicSub(&i[1], 3);
    olds[2] = atomicExch(&i[2], 42);
    olds[3] = atomicMin(&i[3], -7);
    olds[4] = atomicMax(&i[4], 9);
    olds[5] = atomicAnd(&i[5], 0x0f);
    olds[6] = atomicOr(&i[6], 0x30);
    olds[7] = atomicXor(&i[7], 0xff);
    olds[8] = atomicCAS(&i[8], 10, 11);   // matches: swaps
    olds[9] = atomicCAS(&i[9], 10, 11);   // does not match
    olds[10] = (int)atomicInc(&u[0], 3u); // 3 -> 0 (wraps at val)
    olds[11] = (int)atomicInc(&u[1], 3u); // 1 -> 2
    olds[12] = (int)atomicDec(&u[2], 5u); // 0 -> 5 (wraps)
    olds[13] = (int)atomicDec(&u[3], 5u); // 9 -> 5 (above val)
    olds[14] = (int)atomicDec(&u[4], 5u); // 4 -> 3
    unsigned long long old64 = atomicCAS(&ull[0], 1ull << 40, (1ull << 41) + 1);
    olds[15] = old64 == (1ull << 40);
    olds[16] = (int)(atomicAdd(&ull[1], 1ull << 33) >> 32);
    olds[17] = (int)atomicMax(&ll[0], -5ll);
    olds[18] = (int)atomicMin(&ll[1], -5ll);
    olds[19] = (int)atomicAdd(&f[0], 1.5f);
    olds[20] = (int)atomicExch(&f[1], 2.5f);
    olds[21] = (int)atomicAdd(&d[0], 0.25);
    olds[22] = atomicAdd_block(&i[10], 1) + atomicAdd_system(&i[10], 1);
    olds[23] = (int)atomicExch(&ull[2], 77ull);
}

// The classic double-precision add built on the 64-bit atomicCAS.
__device__ double cas_add(double* address, double val) {
    unsigned long long* p = (unsigned long long*)address;
    unsigned long long old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}

__global__ void sum_with_cas(const double* in, double* total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cas_add(total, in[i]);
}

// An intra-block spin lock: thread 0 of each warp takes the lock and, holding
// it, waits at a one-lane warp barrier, so the others spin on atomicCAS
// meanwhile (which works only because long runs of atomics yield).
__global__ void locked_counter(int* lock, int* counter, int* max_inside) {
    __shared__ int inside;
    if (threadIdx.x == 0) inside = 0;
    __syncthreads();
    if (threadIdx.x % 32 == 0) {
        while (atomicCAS(lock, 0, 1) != 0) { }
        inside += 1;
        __syncwarp(1u);
        if (inside > *max_inside) *max_inside = inside;
        *counter += 1;
        inside -= 1;
        __threadfence();
        atomicExch(lock, 0);
    }
}
