// Vector loads and stores through reinterpreted pointers:
// - reinterpret_cast<const float4*>(p)[i] loads and reinterpret_cast<float4*>(p)[i] stores;
// - a member of a vector element (reinterpret_cast<float4*>(p)[i].w *= ...);
// - int2 pairs through a derived int2 pointer (q->x, q->y);
// - __ldg(&a[i]), __ldg(p + i) and a vector __ldg of a float4.

__global__ void float4_copy(const float* in, float* out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    float4 v = reinterpret_cast<const float4*>(in)[i];
    v.x += 1.0f;
    v.w = v.y * 2.0f;
    reinterpret_cast<float4*>(out)[i] = v;
    reinterpret_cast<float4*>(out)[i].z *= 3.0f;
}

__global__ void int2_swap(const int* in, int* out, int n2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n2) return;
    int2 p = reinterpret_cast<const int2*>(in)[i];
    reinterpret_cast<int2*>(out)[i] = make_int2(p.y, p.x);
    int2* q = reinterpret_cast<int2*>(out) + i;
    q->x += 1;
    q->y = q->x - q->y;
}

__global__ void ldg_loads(const float* __restrict__ in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = __ldg(&in[i]);
    float b = __ldg(in + (i + 1) % n);
    float4 v = __ldg(reinterpret_cast<const float4*>(in) + i / 4);
    out[i] = a - b + v.x + v.w;
}
