// Atomics on unsigned long long and float, and compare-and-swap loops:
// - unsigned long long atomicAdd, Min, Max, And, Or, Xor, Exch, CAS;
// - float atomicAdd with small-integer addends (exact, so order-independent) and
//   float atomicExch, on global and shared memory;
// - atomicCAS loops: a float maximum through the int bit pattern, a 64-bit
//   multiply-accumulate, and a templated CAS helper (dependent atomic call).

__global__ void atomic_wide(const int* in, unsigned long long* w, float* f) {
    __shared__ float block_sum;
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    unsigned long long v = (unsigned long long)in[g] << 33;
    if (t == 0) block_sum = 0.0f;
    __syncthreads();
    atomicAdd(&w[0], v);
    atomicMin(&w[1], v + 1ull);
    atomicMax(&w[2], v);
    atomicAnd(&w[3], ~(1ull << (in[g] % 64)));
    atomicOr(&w[4], 1ull << (in[g] % 64));
    atomicXor(&w[5], v);
    atomicExch(&w[6 + g], v);
    atomicCAS(&w[6 + g], v, v + 7ull);
    atomicAdd(&f[0], (float)(in[g] % 16));
    atomicAdd_block(&block_sum, 1.0f);
    atomicExch(&f[1 + g], 0.5f * (float)in[g]);
    __syncthreads();
    if (t == 0) atomicAdd(&f[0], block_sum);
}

__device__ float atomic_max_float(float* address, float value) {
    int* bits = reinterpret_cast<int*>(address);
    int old = atomicOr(bits, 0);
    while (__int_as_float(old) < value) {
        int seen = atomicCAS(bits, old, __float_as_int(value));
        if (seen == old) break;
        old = seen;
    }
    return __int_as_float(old);
}

template <typename T>
__device__ T atomic_mul_add(T* address, T mul, T add) {
    T old = atomicAdd(address, (T)0);
    T assumed;
    do {
        assumed = old;
        old = atomicCAS(address, assumed, assumed * mul + add);
    } while (old != assumed);
    return old;
}

__global__ void cas_loops(const float* in, float* maxima, unsigned long long* acc,
                          unsigned* acc32) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    atomic_max_float(&maxima[blockIdx.x % 2], in[g]);
    atomic_mul_add<unsigned long long>(acc, 3ull, 1ull);
    atomic_mul_add(&acc32[0], 5u, 7u);
}

// Scoped 64-bit and float atomics: _block on shared memory, _system on global.
__global__ void atomic_wide_scopes(const int* in, unsigned long long* w, float* f) {
    __shared__ unsigned long long block_max;
    __shared__ float block_total;
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    if (t == 0) {
        block_max = 0ull;
        block_total = 0.0f;
    }
    __syncthreads();
    unsigned long long v = (unsigned long long)in[g] * 0x100000001ull;
    atomicMax_block(&block_max, v);
    atomicAdd_block(&block_total, (float)(in[g] % 8));
    atomicAdd_system(&w[0], v);
    atomicOr_system(&w[1], v);
    atomicMin_system(&w[2], v);
    atomicCAS_system(&w[3], 0ull, 99ull);
    atomicExch_system(&f[0], 2.5f);
    atomicAdd_system(&f[1], 1.0f);
    __syncthreads();
    if (t == 0) {
        atomicMax(&w[4], block_max);
        atomicAdd(&f[2], block_total);
    }
}
