// Pointers kept in structs and tables:
// - structs holding pointers passed by value to device functions
//   (struct View { float* data; int n; }), and a const view;
// - a view's pointer subscripted through a struct member (v.data[i]);
// - a table of row offsets (instead of a pointer-to-pointer table, which a host
//   cannot pass): rows located with values + offsets[r] (CSR-style).

struct View {
    float* data;
    int n;
    int stride;
};

struct ConstView {
    const float* data;
    int n;
};

__device__ float view_sum(ConstView v, int from, int count) {
    float s = 0.0f;
    for (int k = 0; k < count; ++k) s += v.data[(from + k) % v.n];
    return s;
}

__device__ void view_store(View v, int i, float x) {
    v.data[i * v.stride] = x;
}

__global__ void struct_views(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    ConstView src{in, n};
    View dst;
    dst.data = out;
    dst.n = n;
    dst.stride = 1;
    view_store(dst, i, view_sum(src, i, 3));
    View* pv = &dst;
    pv->data[i] += src.data[i];
}

// Rows of a CSR-like matrix: row r runs between offsets[r] and offsets[r + 1]
// (whichever is smaller first: the offsets are random, rows may overlap).
__global__ void csr_rows(const int* offsets, const float* values, const int* cols, const float* x,
                         float* y, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    int first = offsets[r] < offsets[r + 1] ? offsets[r] : offsets[r + 1];
    const float* row = values + first;
    const int* col = cols + first;
    int len = offsets[r + 1] - offsets[r];
    if (len < 0) len = -len;
    float acc = 0.0f;
    for (int k = 0; k < len; ++k) acc += row[k] * x[col[k]];
    y[r] = acc;
}
