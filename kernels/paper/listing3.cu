// Paper Listing 3 (own kernels for the idea): a long multi-read history.  Many
// threads read one element, then one thread writes it.  A checker that keeps only
// the last one or two readers can lose the reader that races with the write.
// The FSM of semantics.md 2 condenses the whole history and must not.
//
// listing3_first_reader (1 block of 256): every thread reads a[0] [FR], then
//   thread 0 - the first reader in thread order - writes it [FW], no barrier.  The
//   reads by threads 1..255 are unordered with the write: read-write race
//   [FR]-[FW].  (Thread 0's own read is ordered by program order.)
// listing3_other_warp (1 block of 256): every thread reads a[0] [OR], then a
//   __syncwarp, then thread 224 (lane 0 of the last warp) writes it [OW].  The
//   warp barrier orders only the 32 reads of warp 7 before the write; the 224
//   reads of warps 0..6 are unordered with it: race [OR]-[OW].  In an in-order
//   schedule the reads that come just before the write are exactly the ordered
//   ones of the writer's own warp, so a last-reader checker misses the race.
// listing3_other_block (2 blocks of 256): every thread of both blocks reads a[0]
//   [BR], __syncthreads, then thread 0 of block 1 writes it [BW].  The barrier
//   orders the 256 reads of block 1 before the write, but the 256 reads of
//   block 0 are in another block and unordered: race [BR]-[BW].
// listing3_barrier_ok (1 block of 256): every thread reads, __syncthreads, then
//   thread 0 writes: every read happens-before the write: race-free.

__global__ void listing3_first_reader(int *a, int *out)
{
    int t = threadIdx.x;
    int v = a[0];                // [FR] read by all 256 threads
    out[t] = v;
    if (t == 0)
        a[0] = v + 1;            // [FW] the first reader writes; no barrier
}

__global__ void listing3_other_warp(int *a, int *out)
{
    int t = threadIdx.x;
    int v = a[0];                // [OR] read by all 256 threads
    out[t] = v;
    __syncwarp();                // orders only the lanes of one warp
    if (t == 224)
        a[0] = v + 1;            // [OW] lane 0 of warp 7 writes
}

__global__ void listing3_other_block(int *a, int *out)
{
    int t = threadIdx.x;
    int v = a[0];                // [BR] read by all threads of both blocks
    out[blockIdx.x * blockDim.x + t] = v;
    __syncthreads();             // orders block 1's reads before the write, not block 0's
    if (blockIdx.x == 1 && t == 0)
        a[0] = v + 1;            // [BW]
}

__global__ void listing3_barrier_ok(int *a, int *out)
{
    int t = threadIdx.x;
    int v = a[0];
    out[t] = v;
    __syncthreads();
    if (t == 0)
        a[0] = v + 1;
}
