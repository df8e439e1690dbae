// Atomics become block- or device-scope actions; barriers advance the clocks.
__global__ void sync_atomics(int* hist, int* total, const int* keys) {
  int t = threadIdx.x;
  atomicAdd_block(&hist[keys[t] % 8], 1);
  __syncthreads();
  if (__syncthreads_count(t < 8)) atomicAdd(total, hist[t % 8]);
  __syncwarp();
}
