// Warp-level tree reduction of 8 values in shared memory (one warp per block),
// with and without __syncwarp between the steps.
//
// All 32 lanes store s[lane], then __syncwarp (present in both kernels), so the
// initial stores are ordered before every step.  Step with offset o (4, 2, 1):
// lane l < o reads s[l + o] and reads/writes s[l].
// warp_reduce_sync: a __syncwarp (executed by all lanes) after every step: within
//   a step the read set [o, 2o) and the write set [0, o) are disjoint and s[l]
//   is touched only by lane l, across steps the warp barrier orders: race-free.
// warp_reduce_nosync: no barrier between the steps, relying on lock-step
//   execution, which semantics.md 1 does not assume.  Derivation: element e is
//   written at step o by lane e iff e < o, and read as s[l + o] at step o by lane
//   e - o iff o <= e < 2o.
//     [S2] lane 0,1 read s[2], s[3], written at [S4] by lanes 2,3 -> [S4]-[S2]
//     [S1] lane 0 reads s[1], written at [S4] and [S2] by lane 1
//                                                     -> [S4]-[S1], [S2]-[S1]
//     [S4] reads s[4..7], written only before the __syncwarp: ordered.
//   The s[l] accesses are all by lane l.  Three read-write pairs (shared).
// warp_reduce_volatile_nosync: the same through a volatile pointer, the legacy
//   warp-synchronous idiom; volatile orders nothing: the same three pairs
//   [V4]-[V2], [V4]-[V1], [V2]-[V1].
// Launch with blockDim.x = 32.

__global__ void warp_reduce_sync(const int *in, int *out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    s[lane] = in[blockIdx.x * 32 + lane];
    __syncwarp();
    if (lane < 4)
        s[lane] += s[lane + 4];
    __syncwarp();
    if (lane < 2)
        s[lane] += s[lane + 2];
    __syncwarp();
    if (lane < 1)
        s[lane] += s[lane + 1];
    __syncwarp();
    if (lane == 0)
        out[blockIdx.x] = s[0];
}

__global__ void warp_reduce_nosync(const int *in, int *out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    s[lane] = in[blockIdx.x * 32 + lane];
    __syncwarp();
    if (lane < 4)
        s[lane] += s[lane + 4];            // [S4]
    if (lane < 2)
        s[lane] += s[lane + 2];            // [S2]
    if (lane < 1)
        s[lane] += s[lane + 1];            // [S1]
    __syncwarp();
    if (lane == 0)
        out[blockIdx.x] = s[0];
}

__global__ void warp_reduce_volatile_nosync(const int *in, int *out)
{
    __shared__ int s[32];
    int lane = threadIdx.x;
    s[lane] = in[blockIdx.x * 32 + lane];
    __syncwarp();
    volatile int *vs = s;
    if (lane < 4)
        vs[lane] += vs[lane + 4];          // [V4]
    if (lane < 2)
        vs[lane] += vs[lane + 2];          // [V2]
    if (lane < 1)
        vs[lane] += vs[lane + 1];          // [V1]
    __syncwarp();
    if (lane == 0)
        out[blockIdx.x] = s[0];
}
