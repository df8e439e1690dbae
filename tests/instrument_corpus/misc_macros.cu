// Macros around accesses, calls and barriers:
// - macros expanding to a whole access (AT(a, i) -> a[i]), to an index expression
//   (IDX), to a pointer name (SRC) and to a function name (LOAD): instrumented like
//   plain code;
// - a macro expanding to a __syncthreads() statement (BARRIER): rewritten;
// - macros whose expansion contains an access, an atomic or a call of an
//   instrumented device function inside a larger expression (SQUARE_AT, STORE_SUM,
//   COUNT_HIT, BUMP, MAX2, LOAD_T): not instrumented, each with a `macro` warning.

#define AT(a, i) a[i]
#define IDX (blockIdx.x * blockDim.x + threadIdx.x)
#define SRC x
#define LOAD load_at
#define BARRIER __syncthreads()
#define SQUARE_AT(a, i) ((a)[i] * (a)[i])
#define STORE_SUM(dst, a, b, i) (dst)[i] = (a)[i] + (b)[i]
#define COUNT_HIT atomicAdd(&hits[0], 1)
#define BUMP(p) atomicAdd(p, 2)
#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define LOAD_T load_at(y, i)

__device__ int load_at(const int* p, int i) {
    return p[i];
}

__global__ void macro_accesses(const int* x, const int* y, int* out, int* sq, int* hits, int n) {
    int i = IDX;
    if (i >= n) return;
    AT(out, i) = AT(x, i) + 1;
    AT(out, i) += AT(y, (i + 1) % n) + SRC[i] + LOAD(x, (i + 2) % n);
    sq[i] = SQUARE_AT(x, i);
    STORE_SUM(sq, sq, y, i);
    COUNT_HIT;
    BUMP(&hits[1]);
    out[i] += MAX2(load_at(x, i), 50) + LOAD_T;
}

__global__ void macro_barrier(const int* x, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = x[IDX];
    BARRIER;
    out[IDX] = AT(s, 63 - t);
}
