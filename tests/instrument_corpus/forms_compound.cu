// Compound assignment and increment forms on global memory:
// - += -= *= /= %= <<= >>= &= |= ^= on int, and += *= -= /= on float;
// - ++ and -- in prefix and postfix form, as statements and used as values
//   (on int, unsigned and float elements, and on struct fields).

__global__ void compound_ops(const int* in, int* acc, unsigned* bits, float* f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    acc[i] += in[i];
    acc[i] -= 7;
    acc[i] *= 3;
    acc[i] /= 2;
    acc[i] %= 1000;
    bits[i] <<= 3;
    bits[i] |= (unsigned)in[i] & 7u;
    bits[i] &= 0x3ffu;
    bits[i] ^= 0x155u;
    bits[i] >>= 1;
    f[i] += in[i];
    f[i] *= 0.5f;
    f[i] -= 1.0f;
    f[i] /= 4.0f;
}

struct Tally {
    int hits;
    int misses;
};

__global__ void increments(unsigned* counter, int* pre, int* post, float* f, Tally* tally,
                           int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    ++counter[i];
    counter[i]++;
    --counter[i];
    pre[i] = (int)++counter[i] + --post[i];
    post[i] += (int)counter[i]-- * 2 + pre[i]++;
    f[i]++;
    --f[i];
    ++f[i];
    float old = f[i]--;
    f[i] += old;
    tally[i].hits++;
    --tally[i].misses;
    pre[i] += tally[i].hits++ - ++tally[i].misses;
}
