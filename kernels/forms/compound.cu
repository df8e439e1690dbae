// Compound assignment (a read and a write on one line) and ++ / --.
//
// forms_compound (1 block of 64): a[t] += t and a[t] *= 2 touch only the
//   thread's own element: no conflict.  Thread 0 does acc[0] += 5 [CC] (a read
//   and a write of acc[0]) and thread 33 plain-reads acc[0] [CR], no barrier: the
//   write of [CC] and the read of [CR] race (read-write, [CC]-[CR]); the two
//   reads do not conflict.  acc[0] has no other accessor.
// forms_incdec (1 block of 64): cnt[2 + t]++ and --cnt[2 + t] are on the own
//   element.  Thread 0 does cnt[0]++ [IN] and thread 33 reads cnt[0] [IR0];
//   thread 40 does --cnt[1] [DE] and thread 5 reads cnt[1] [IR1]; no barrier:
//   read-write races [IN]-[IR0] and [DE]-[IR1].

__global__ void forms_compound(int *a, int *acc, int *out)
{
    int t = threadIdx.x;
    a[t] += t;
    a[t] *= 2;
    if (t == 0)
        acc[0] += 5;                                  // [CC]
    if (t == 33)
        out[0] = acc[0];                              // [CR]
}

__global__ void forms_incdec(int *cnt, int *out)
{
    int t = threadIdx.x;
    cnt[2 + t]++;
    --cnt[2 + t];
    if (t == 0)
        cnt[0]++;                                     // [IN]
    if (t == 40)
        --cnt[1];                                     // [DE]
    if (t == 33)
        out[0] = cnt[0];                              // [IR0]
    if (t == 5)
        out[1] = cnt[1];                              // [IR1]
}
