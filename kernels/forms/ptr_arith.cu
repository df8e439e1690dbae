// Pointer arithmetic: p = a + k; p[i].
//
// forms_ptr_arith (1 block of 64, a of 80 ints): dst = a + 8 and src = a + 16.
//   Thread t writes dst[t] = a[8 + t] [PW] and reads src[t] = a[16 + t] [PR].
//   Element e in [16, 71] is written by thread e - 8 and read by thread e - 16,
//   no barrier: read-write race [PW]-[PR] (global).
// forms_ptr_arith_shared (1 block of 64): the same idea on shared memory: thread
//   t writes s[t] through mine = s + t [QW]; threads 0..31 read ahead[t % 32] =
//   s[32 + t], the slot of thread t + 32 (another warp), no barrier: read-write
//   race [QW]-[QR] (shared).  Threads 32..63 read their own slot.

__global__ void forms_ptr_arith(int *a, int *out)
{
    int t = threadIdx.x;
    int *dst = a + 8;
    int *src = a + 16;
    dst[t] = t;                                       // [PW]
    out[t] = src[t];                                  // [PR]
}

__global__ void forms_ptr_arith_shared(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int *mine = s + t;
    const int *ahead = s + 32;
    *mine = t;                                        // [QW]
    out[t] = ahead[t % 32];                           // [QR]
}
