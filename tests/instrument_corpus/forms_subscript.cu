// Access forms on global memory through subscripts:
// - a[i] reads and writes;
// - nested subscripts a[b[i]] and a[b[b[i]]] (a gather with random indices, and a
//   scatter through a permutation the block builds in global memory first);
// - chained assignment a[i] = b[i] = x, and an assignment used as a value;
// - the conditional operator with accesses in both arms (as a value and as an lvalue);
// - the comma operator, in an expression and in a for-increment.

__global__ void gather_nested(const int* idx, const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[idx[i]] + in[idx[idx[i]]];
    }
}

// One block: every thread writes its slot of the permutation, then reads others'.
__global__ void scatter_permutation(int* perm, const int* in, int* out) {
    int t = threadIdx.x;
    int n = blockDim.x;
    perm[t] = (t * 5 + 3) % n;
    __syncthreads();
    out[perm[t]] = in[perm[perm[t]]] + t;
}

__global__ void chained_assign(const float* in, float* a, float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    a[i] = b[i] = in[i] * 0.5f;
    float v = (c[i] = in[i] + 1.0f) * 2.0f;
    a[i] += v;
    if ((b[i] = a[i] - in[i]) > 40.0f) c[i] = -c[i];
}

__global__ void select_and_comma(const int* x, const int* y, int* lo, int* hi, int* both,
                                 int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    lo[i] = x[i] < y[i] ? x[i] : y[i];
    hi[i] = x[i] < y[i] ? y[i] : x[i];
    (x[i] % 2 ? lo[i] : hi[i]) += 1000;
    int k = (both[i] = x[i], both[i] += y[i], both[i] * 3);
    lo[i] += k;
    for (int j = 0; j < x[i] % 5; ++j, hi[i]++) {
    }
}
