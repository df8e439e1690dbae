// roundtrip.cu fixed: only the result is copied back.
#include <cstdio>

__global__ void square(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}

int main() {
  const int n = 512;
  float h[n], r[n];
  for (int i = 0; i < n; ++i) h[i] = 0.5f * i;
  float *in, *out;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof r);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  square<<<2, 256>>>(out, in, n);
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  printf("%.2f %.2f\n", h[n - 1], r[n - 1]);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
