// extern __shared__ (dynamic shared memory; launch with shared_bytes set).
//
// dyn_shared_ok: buf[t] = in[i]; barrier; read buf[n - 1 - t]: ordered, race-free.
//   Needs shared_bytes >= 4 * blockDim.x.
// dyn_shared_race: the same without the barrier.  With n = blockDim.x even,
//   n - 1 - t != t, so every read [DR] is of an element written by another thread
//   [DW] with nothing in between: read-write race [DW]-[DR].
// dyn_shared_overlap: two arrays carved out of one dynamic buffer with an
//   off-by-one: vals starts at dyn + n - 1 instead of dyn + n, so vals[0] and
//   keys[n - 1] are the same int.  Thread n - 1 writes it through keys [KW] and
//   thread 0 through vals [VW], unordered: write-write race [KW]-[VW].  No other
//   element is shared (keys covers [0, n), vals covers [n - 1, 2n - 1)).  Needs
//   shared_bytes >= 4 * (2n - 1).

__global__ void dyn_shared_ok(const float *in, float *out)
{
    extern __shared__ float buf[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = in[i];
    __syncthreads();
    out[i] = buf[blockDim.x - 1 - t];
}

__global__ void dyn_shared_race(const float *in, float *out)
{
    extern __shared__ float buf[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = in[i];                        // [DW]
    out[i] = buf[blockDim.x - 1 - t];      // [DR] no barrier
}

__global__ void dyn_shared_overlap(int *out)
{
    extern __shared__ int dyn[];
    int t = threadIdx.x;
    int n = blockDim.x;
    int *keys = dyn;
    int *vals = dyn + n - 1;               // bug: should be dyn + n
    keys[t] = t;                           // [KW]
    vals[t] = -t;                          // [VW]
    __syncthreads();
    out[blockIdx.x * n + t] = keys[t] + vals[t];
}
