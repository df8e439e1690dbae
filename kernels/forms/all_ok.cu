// Every access form in one race-free kernel: p = a + k, *p, p[0] +=, (*p)++,
// a[i]--, a[i].f, p->f, a __device__ helper receiving &a[i], &a[i] and a + k
// passed to atomics, a 2-D shared array, a shared scalar.  Each global element is
// touched only by its owner thread or by atomics; cnt is touched only by
// device-scope atomics; the shared scalar is written by thread 0 before a
// barrier, then updated by block-scope atomics of the block, then read after a
// second barrier; the 2-D shared array is written by the owner row before the
// barrier and read by others after it.  Race-free.
// Arrays: v has gridDim.x * blockDim.x ints, recs 2 * that, cnt 1 + gridDim.x,
// out gridDim.x * blockDim.x.  blockDim.x <= 64.

struct Rec {
    int a;
    int b;
};

__device__ void bump(int *p)
{
    *p += 1;
}

__global__ void forms_all_ok(int *v, Rec *recs, int *cnt, int *out)
{
    __shared__ int sm[64][2];
    __shared__ int total;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int *p = v + i;
    *p = t;
    p[0] += 2;
    (*p)++;
    v[i]--;
    recs[i].a = t;
    Rec *r = recs + i;
    r->b = r->a * 2;
    bump(&v[i]);
    atomicAdd(&cnt[0], 1);
    atomicAdd(cnt + 1 + blockIdx.x, t);
    sm[t][0] = *p;
    sm[t][1] = r->b;
    if (t == 0)
        total = 0;
    __syncthreads();
    atomicAdd_block(&total, sm[(t + 1) % blockDim.x][0]);
    __syncthreads();
    out[i] = total + sm[blockDim.x - 1 - t][1];
}
