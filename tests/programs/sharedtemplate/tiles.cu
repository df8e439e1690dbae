// Tiles whose __shared__ arrays take their size from the kernel's template
// parameters (as cuda-samples' matrixMul declares As[BLOCK_SIZE][BLOCK_SIZE]),
// instantiated at two sizes, plus a second dependent array after the first in
// the same kernel, declared in a loop body. hirace cannot know their sizes
// before the C++ compiler does: they are monitored all the same.
#include <cstdio>

template <int B, typename T>
__global__ void transpose_tiles(const T* in, T* out, int n) {
  for (int round = 0; round < 2; ++round) {
    __shared__ T tile[B][B];
    __shared__ T copy[B];
    int x = blockIdx.x * B + threadIdx.x, y = blockIdx.y * B + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * n + x] + round;
#ifndef NO_BARRIER
    __syncthreads();
#endif
    T v = tile[threadIdx.x][threadIdx.y];
    if (threadIdx.y == 0) copy[threadIdx.x] = v;
    __syncthreads();
    int tx = blockIdx.y * B + threadIdx.x, ty = blockIdx.x * B + threadIdx.y;
    out[ty * n + tx] = v + copy[threadIdx.x] * 0;
    __syncthreads();
  }
}

int main() {
  const int n = 32;
  float *in, *out;
  double *din, *dout;
  cudaMallocManaged(&in, n * n * sizeof(float));
  cudaMallocManaged(&out, n * n * sizeof(float));
  cudaMallocManaged(&din, n * n * sizeof(double));
  cudaMallocManaged(&dout, n * n * sizeof(double));
  for (int i = 0; i < n * n; ++i) in[i] = din[i] = i;
  transpose_tiles<16, float><<<dim3(2, 2), dim3(16, 16)>>>(in, out, n);
  transpose_tiles<8, double><<<dim3(4, 4), dim3(8, 8)>>>(din, dout, n);
  cudaDeviceSynchronize();
  printf("%g %g %g\n", out[1], out[n], dout[n * n - 2]);
  cudaFree(in);
  cudaFree(out);
  cudaFree(din);
  cudaFree(dout);
  return 0;
}
