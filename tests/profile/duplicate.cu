// Duplicate transfer: the same input is copied to the device on every step,
// although the kernel never changes it.
#include <cstdio>

__global__ void scale(float* out, const float* in, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = factor * in[i];
}

int main() {
  const int n = 1024;
  float* h = new float[n];
  float* r = new float[n];
  for (int i = 0; i < n; ++i) h[i] = (float)i;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  float sum = 0;
  for (int step = 0; step < 4; ++step) {
    cudaMemcpy(in, h, n * sizeof(float), cudaMemcpyHostToDevice);  // expect: duplicate-transfer
    scale<<<n / 256, 256>>>(out, in, (float)step, n);
    cudaMemcpy(r, out, n * sizeof(float), cudaMemcpyDeviceToHost);
    sum += r[n - 1];
  }
  printf("sum %.1f\n", sum);
  cudaFree(in);
  cudaFree(out);
  delete[] h;
  delete[] r;
  return 0;
}
