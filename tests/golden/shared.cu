// Static and dynamic __shared__ variables register themselves with the thread
// context where they are declared, so accesses through pointers find them.
__global__ void stage(const int* in, int* out) {
  __shared__ int tile[64];
  extern __shared__ int spill[];
  int t = threadIdx.x;
  tile[t] = in[t];
  spill[t] = tile[63 - t];
  __syncthreads();
  out[t] = spill[t];
}
