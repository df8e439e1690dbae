// Access through a derived pointer with *p.
//
// forms_deref (1 block): thread t writes its element through *mine [DW] and reads
// the next thread's element through *next [DR], no barrier.  Element j is
// written by thread j and read by thread j - 1 (mod n): read-write race
// [DW]-[DR] (global).

__global__ void forms_deref(int *a, int *out)
{
    int t = threadIdx.x;
    int *mine = a + t;
    int *next = a + (t + 1) % blockDim.x;
    *mine = t;                                        // [DW]
    out[t] = *next;                                   // [DR]
}
