// Integer intrinsics, math functions and conversions, element by element.
__global__ void bit_ops(const unsigned* in, int* pop, int* clz, int* ffs, unsigned* brev,
                        unsigned* hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i];
    pop[i] = __popc(v);
    clz[i] = __clz((int)v);
    ffs[i] = __ffs((int)v);
    brev[i] = __brev(v);
    hi[i] = __umulhi(v, 0x9e3779b9u);
}

__global__ void math_ops(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[8 * i + 0] = sinf(v) + cosf(v);
    out[8 * i + 1] = expf(-v * v);
    out[8 * i + 2] = rsqrtf(fabsf(v) + 1.0f);
    out[8 * i + 3] = fminf(v, 0.5f) + fmaxf(v, -0.5f);
    out[8 * i + 4] = __saturatef(v);
    out[8 * i + 5] = (float)__float2int_rn(v * 10.0f);
    out[8 * i + 6] = __fdividef(v, 3.0f) + __expf(v) - __logf(fabsf(v) + 1.0f);
    out[8 * i + 7] = (float)(min(i, 3) + max(-i, -2) + abs(-i)) + sqrtf((float)i);
}

// Vector types and their make_ functions.
__global__ void vectors(const float4* in, float2* sums, int2* parts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = __ldg(&in[i]);
    sums[i] = make_float2(v.x + v.y, v.z + v.w);
    parts[i] = make_int2(__float2int_rz(v.x), __float2int_rd(v.w));
}
