// A graph relaxation step in the style of generated graph-analytics codes
// (our own, written for hirace): every thread takes an edge (src -> dst) of a
// small ring, reads the source's level with a relaxed cuda::atomic load, and
// lowers the destination's next level with atomicMin; the thread of a node
// also reads its own level plainly. Loads and plain reads of `level` do not
// conflict, nor loads and atomics of `next`: race-free
// (docs/semantics.md 1.5).
//
// relax_store: as relax, but the thread of node 0 also stores a new level of
// node 0 plainly [ST] while the others load it [LD]: atomic-plain race.
#include <cuda/atomic>

__device__ int load_level(int *p)
{
    return ((cuda::atomic<int> *)p)->load(cuda::memory_order_relaxed);  // [LD]
}

__global__ void relax(const int *src, const int *dst, int *level, int *next, int *own, int n)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n)
        return;
    int s = load_level(&level[src[e]]);
    atomicMin(&next[dst[e]], s + 1);
    own[e] = level[e];
}

__global__ void relax_store(const int *src, const int *dst, int *level, int *next, int *own, int n)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n)
        return;
    int s = load_level(&level[src[e]]);
    atomicMin(&next[dst[e]], s + 1);
    if (e == 0)
        level[0] = s;  // [ST]
    own[e] = level[e];
}
