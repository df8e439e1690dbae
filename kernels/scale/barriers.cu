// More than 70,000 __syncthreads in one launch (semantics.md 3: barrier clocks must
// not overflow silently; this crosses 2^16).  One block of 32 threads.
//
// Barrier count bc seen by a thread: 1 after the first barrier; inside loop
// iteration k, 1 + 2k before the first loop barrier and 2 + 2k between the two;
// 1 + 2*ITERS = 70001 after the loop.
//
// scale_barriers_ok: a neighbour exchange s[t] -> s[(t+1) % 32] in every
//   iteration, each read and each write separated by a barrier, so every
//   cross-thread pair is ordered.  Three scalars are written once before the
//   first barrier (bc = 0) and read by another thread much later:
//     mid    read at k = 20000 between the barriers (bc = 40002): a distance that
//            a 16-bit wrap-around ("serial number") comparison gets wrong;
//     wrapped read at k = 32767 between the barriers (bc = 65536 = 2^16): a
//            16-bit clock would see the same value as the write's;
//     tail   read after the loop (bc = 70001).
//   All are ordered by the barriers in between: race-free.
// scale_barriers_racy: the same loop, then, after barrier number 70001, thread 0
//   reads s[1] [LR] while thread 1 writes it [LW], with no barrier in between:
//   read-write race [LR]-[LW] (shared).  Every earlier access to s[1] is ordered
//   before both by the last loop barrier.

#define ITERS 35000

__global__ void scale_barriers_ok(int *out)
{
    __shared__ int s[32];
    __shared__ int mid;
    __shared__ int wrapped;
    __shared__ int tail;
    int t = threadIdx.x;
    if (t == 1)
        tail = 7;
    if (t == 2)
        mid = 8;
    if (t == 5)
        wrapped = 9;
    s[t] = t;
    __syncthreads();
    for (int k = 0; k < ITERS; ++k) {
        int v = s[(t + 1) % 32];
        __syncthreads();
        s[t] = v + 1;
        if (k == 20000 && t == 3)
            out[33] = mid;
        if (k == 32767 && t == 4)
            out[34] = wrapped;
        __syncthreads();
    }
    out[t] = s[(t + 5) % 32];
    if (t == 0)
        out[32] = tail;
}

__global__ void scale_barriers_racy(int *out)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    for (int k = 0; k < ITERS; ++k) {
        int v = s[(t + 1) % 32];
        __syncthreads();
        s[t] = v + 1;
        __syncthreads();
    }
    if (t == 0)
        out[0] = s[1];                                // [LR]
    if (t == 1)
        s[1] = -1;                                    // [LW]
}
