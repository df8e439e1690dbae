// Paper Listing 1 (own kernel for the idea): a read and a write of the same
// element by different threads with no synchronisation at all.
//
// Thread i reads a[i + 1] (line [R]) and then writes a[i] (line [W]).  For every
// element j with 1 <= j <= n - 2, thread j - 1 reads it and thread j writes it.
// The kernel has no barrier, so nothing orders the two accesses (semantics.md 1:
// HB is program order plus barrier edges only): each such pair is a read-write
// race, in every execution.  With grid 2 x 64 the pair (63, 64) is even split
// across blocks; the verdict does not depend on that.  Elements 0 and n - 1 are
// touched by one thread each.  Expected: one racing line pair, [R]-[W].

__global__ void listing1(int *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1) {
        int v = a[i + 1];   // [R] read of the neighbour's element
        a[i] = v + 1;       // [W] write of the own element
    }
}
