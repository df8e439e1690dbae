// Shared declarations in less common places:
// - several __shared__ variables in one declaration (int a[64], b[64]; float x, y;);
// - a __shared__ array declared in a nested block scope;
// - extern __shared__ declared inside device functions (dynamic shared memory that a
//   helper stages and another helper reads);
// - a range-based for over a __shared__ array, by reference (writes) and by value.

__device__ void stage_dynamic(const int* in, int t) {
    extern __shared__ int dyn[];
    dyn[t] = in[t] * 2;
}

__device__ int read_dynamic(int t, int n) {
    extern __shared__ int dyn[];
    return dyn[(t + 1) % n];
}

__global__ void shared_declarations(const int* in, int* out) {
    __shared__ int a[64], b[64];
    __shared__ float x, y;
    int t = threadIdx.x;
    int n = blockDim.x;
    int g = blockIdx.x * n + t;
    if (t == 0) {
        x = 1.5f;
        y = -2.0f;
    }
    a[t] = in[g];
    b[t] = -in[g];
    stage_dynamic(in + blockIdx.x * n, t);
    __syncthreads();
    int sum = 0;
    {
        __shared__ int inner[64];
        inner[t] = a[(t + 3) % n] + b[t];
        __syncthreads();
        sum = inner[n - 1 - t];
    }
    out[g] = sum + read_dynamic(t, n) + (int)(x * y);
    __syncthreads();
    if (t == 0) {
        for (int& v : a) v += 1;
        int total = 0;
        for (int v : b) total += v;
        a[0] += total;
    }
    __syncthreads();
    out[g] += a[t];
}
