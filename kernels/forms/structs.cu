// Struct member access: p->f and a[i].f.
//
// forms_struct_arrow (1 block): thread t writes ps[t].x through me->x [AW] and
//   reads ps[t + 1].x through next->x [AR], no barrier: read-write race
//   [AW]-[AR].  The v field is written by its owner only and read by nobody.
//   The Particle array is passed as float32 of 2 * n.
// forms_struct_index (1 block): thread t writes cells[t].count [IW] and
//   cells[t].tag, then reads cells[t + 1].count [IR], no barrier: read-write race
//   [IW]-[IR].  The tag fields are written by their owner only (a different
//   location from count).  The Cell array is passed as int32 of 2 * n.

struct Particle {
    float x;
    float v;
};

struct Cell {
    int count;
    int tag;
};

__global__ void forms_struct_arrow(Particle *ps, float *out)
{
    int t = threadIdx.x;
    Particle *me = ps + t;
    Particle *next = ps + (t + 1) % blockDim.x;
    me->x = 0.5f * t;                                 // [AW]
    me->v = 1.0f;
    out[t] = next->x;                                 // [AR]
}

__global__ void forms_struct_index(Cell *cells, int *out)
{
    int t = threadIdx.x;
    cells[t].count = t;                               // [IW]
    cells[t].tag = -t;
    out[t] = cells[(t + 1) % blockDim.x].count;       // [IR]
}
