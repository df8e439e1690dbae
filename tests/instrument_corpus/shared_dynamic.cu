// Dynamic shared memory (extern __shared__, sized by the launch's shared_bytes):
// - a double-buffered Hillis-Steele inclusive scan over an extern __shared__ int array;
// - two extern __shared__ arrays of different types (float and int) aliasing the same
//   buffer, partitioned by offsets: floats first, ints after blockDim.x floats;
// - a pointer into the dynamic buffer handed to a device function.

__global__ void dynamic_scan(const int* in, int* out) {
    extern __shared__ int buf[];
    int t = threadIdx.x;
    int n = blockDim.x;
    int g = blockIdx.x * n + t;
    int* src = buf;
    int* dst = buf + n;
    src[t] = in[g];
    __syncthreads();
    for (int d = 1; d < n; d *= 2) {
        dst[t] = t >= d ? src[t] + src[t - d] : src[t];
        __syncthreads();
        int* tmp = src;
        src = dst;
        dst = tmp;
    }
    out[g] = src[t];
}

__device__ void count_above(int* counts, const float* values, int t, int n, float limit) {
    int c = 0;
    for (int k = 0; k < n; ++k) c += values[k] > limit ? 1 : 0;
    counts[t] = c + t;
}

__global__ void dynamic_two_types(const float* in, float* out, int* counts_out) {
    extern __shared__ float fpart[];
    extern __shared__ int ipart[];
    int t = threadIdx.x;
    int n = blockDim.x;
    int g = blockIdx.x * n + t;
    int* counts = ipart + n;
    fpart[t] = in[g];
    __syncthreads();
    count_above(counts, fpart, t, n, fpart[t]);
    __syncthreads();
    out[g] = fpart[(t + 1) % n] * 2.0f;
    counts_out[g] = counts[n - 1 - t];
}
