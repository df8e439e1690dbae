// A kernel reads a __constant__ table through a pointer to one of its rows,
// as cuda-samples' quasirandomGenerator does: the runtime must find the
// table's region (nothing unmonitored), and a table the host never copied to
// reads its static zeros, which is no uninitialised read.
#include <cstdio>

__constant__ unsigned table[4][8];
__constant__ unsigned zeros[8];
__global__ void k(unsigned* out) {
  const unsigned* row = &table[threadIdx.y][0];
  unsigned r = 0;
  for (int b = 0; b < 8; ++b) r ^= row[b] + (&zeros[0])[b];
  out[threadIdx.y * 32 + threadIdx.x] = r;
}
int main() {
  unsigned h[4][8];
  for (int i = 0; i < 4; ++i) for (int j = 0; j < 8; ++j) h[i][j] = 1u << (i + j);
  cudaMemcpyToSymbol(table, h, sizeof h);
  unsigned* out;
  cudaMallocManaged(&out, 128 * sizeof(unsigned));
  k<<<1, dim3(32, 4)>>>(out);
  cudaDeviceSynchronize();
  printf("%u %u\n", out[0], out[127]);
  cudaFree(out);
  return 0;
}
