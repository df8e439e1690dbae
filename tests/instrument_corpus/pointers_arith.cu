// Pointers derived from kernel parameters:
// - by arithmetic: p = a + k, p += k, &a[i] + 1, negative offsets p[-1];
// - by assignment in loops: for (const int* q = begin; q < end; ++q), *dst++ = v,
//   and a backwards walk with --q;
// - pointer comparison (<, !=, ==, against nullptr) and pointer difference (q - base).

// One thread per row: running sums along the row, written through a walking pointer.
__global__ void row_prefix(const int* in, int* out, int width, int rows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const int* begin = in + row * width;
    const int* end = begin + width;
    int* dst = out;
    dst += row * width;
    int sum = 0;
    for (const int* q = begin; q < end; ++q) {
        sum += *q;
        *dst++ = sum;
    }
    // Walk back over the row, making each element the difference to its left neighbour.
    for (int* q = out + row * width + width - 1; q > out + row * width; --q) {
        q[0] -= q[-1];
    }
}

// Find the first element >= key in each row; store its position and value.
__global__ void find_first(const int* in, int* pos, int* val, int width, int rows, int key) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const int* base = &in[row * width];
    const int* hit = nullptr;
    for (const int* q = base; q != base + width; q++) {
        if (*q >= key) {
            hit = q;
            break;
        }
    }
    pos[row] = hit != nullptr ? (int)(hit - base) : -1;
    int* v = &val[row] + 1;
    v[-1] = hit == nullptr ? 0 : *hit;
    if (hit == base) *(v - 1) += 1000000;
}
