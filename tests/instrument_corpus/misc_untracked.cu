// Forms the rewriter leaves alone or can only warn about:
// - sizeof(a[i]) and decltype (not accesses);
// - a pointer to rows of fixed size (float (*rows)[8]) and a 2-D __device__ array;
// - bit-field members of structs in global memory (a `bitfield` warning);
// - memcpy in device code from global memory into a local array (an
//   `untracked-call` warning).

#include <cstring>

struct Packed {
    unsigned lo : 4;
    unsigned hi : 4;
    unsigned rest : 24;
};

__device__ int g_mat[4][64];

__global__ void untracked_forms(const int* in, int* out, float* rows_data, Packed* packed) {
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    decltype(out[g]) ref = out[g];
    ref = (int)sizeof(in[g]) + (int)sizeof(decltype(in[g]));
    g_mat[blockIdx.x][t] = in[g];
    out[g] += g_mat[blockIdx.x][t];
    float (*rows)[8] = reinterpret_cast<float (*)[8]>(rows_data);
    rows[g / 8][g % 8] += 1.0f;
    rows[g / 8][g % 8] *= (float)(g % 3);
    packed[g].lo = t & 15u;
    packed[g].hi = packed[g].lo + 1u;
    int local[2];
    memcpy(local, in + (g & ~1), sizeof(local));
    out[g] += local[1] - local[0];
}
