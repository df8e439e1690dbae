// Unused data: a buffer no kernel ever reads, and a copy overwritten before
// any kernel reads it.
#include <cstdio>

__global__ void negate(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = -in[i];
}

int main() {
  const int n = 256;
  float zeros[n] = {}, h[n], r[n];
  for (int i = 0; i < n; ++i) h[i] = (float)i;
  float *in, *out, *spare;
  cudaMalloc(&spare, sizeof h);  // expect: unused-data
  cudaMemset(spare, 0, sizeof h);
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof r);
  cudaMemcpy(in, zeros, sizeof zeros, cudaMemcpyHostToDevice);  // expect: unused-data
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  negate<<<1, n>>>(out, in, n);
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  printf("%.1f\n", r[n - 1]);
  cudaFree(spare);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
