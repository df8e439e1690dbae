// semantics.md 2, trap 2: a write, a warp barrier, atomics by two lanes, then a
// plain read by one of those lanes.  A race.
//
// trap2_reader_first_lane (1 warp): lane 0 plain-writes c[0]; __syncwarp; lanes 0
//   and 1 do atomicAdd_block on c[0] [T2A]; lane 0 then plain-reads c[0] [T2R].
//   Lane 1's atomic is unordered with lane 0's read (no barrier after the
//   atomics): atomic-plain race [T2A]-[T2R].  Lane 0's write is ordered before
//   lane 1's atomic by the warp barrier, and before its own read by program
//   order, so that is the only racing pair.
// trap2_reader_second_lane: the same with device-scope atomicAdd [T2GA] by
//   lanes 0, 1 and 2 and the read by lane 1 [T2GR]. Lane 1's own atomic
//   orders the atomics it observed, those before it (docs/semantics.md 1.6,
//   observation order), and no other: the read races with whichever other
//   atomic comes after lane 1's (lane 2's, on the CPU backend, which runs the
//   lanes in order): race [T2GA]-[T2GR].
// trap2_fixed: a __syncwarp between the atomics and the read orders both atomics
//   before the read: race-free.
// Launch with one block of 32.

__global__ void trap2_reader_first_lane(int *c, int *out)
{
    int lane = threadIdx.x;
    if (lane == 0)
        c[0] = 5;
    __syncwarp();
    if (lane == 0 || lane == 1)
        atomicAdd_block(&c[0], 1);                    // [T2A]
    if (lane == 0)
        out[0] = c[0];                                // [T2R]
}

__global__ void trap2_reader_second_lane(int *c, int *out)
{
    int lane = threadIdx.x;
    if (lane == 0)
        c[0] = 5;
    __syncwarp();
    if (lane < 3)
        atomicAdd(&c[0], 1);                          // [T2GA]
    if (lane == 1)
        out[0] = c[0];                                // [T2GR]
}

__global__ void trap2_fixed(int *c, int *out)
{
    int lane = threadIdx.x;
    if (lane == 0)
        c[0] = 5;
    __syncwarp();
    if (lane == 0 || lane == 1)
        atomicAdd_block(&c[0], 1);
    __syncwarp();
    if (lane == 0)
        out[0] = c[0];
}
