// Dereference and member forms on global memory:
// - *p and *(p + i) reads, writes and compound assignments, (*p).f;
// - p->f and p->arr[j] through a pointer to a struct element;
// - a[i].f and a[i].arr[j] on an array of structs, and a nested struct a[i].in.f.

struct Inner {
    float lo, hi;
};

struct Cell {
    float value;
    float weight;
    float hist[4];
    Inner range;
};

__global__ void pointer_deref(float* a, const float* b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float* p = a + i;
    *p = *p * 2.0f;
    *(a + i) += 1.0f;
    *(out + i) = *(b + i) + *p;
    *(out + i) -= *(b + (i + 1) % n);
}

__global__ void struct_members(Cell* cells, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Cell* c = cells + i;
    c->value += c->weight;
    cells[i].weight = 0.5f * cells[i].value;
    for (int j = 0; j < 4; ++j) cells[i].hist[j] += (float)j;
    c->hist[0] = (*c).value - c->hist[3];
    cells[i].range.lo = c->range.hi - 1.0f;
    (*c).range.hi *= 2.0f;
    out[i] = c->hist[0] + cells[i].range.lo + (&cells[i])->weight;
}
