// Fast-math intrinsics of nvcc's headers.
// expect: 100.0 3.0 0.00 1.00 8.0 2.0
#include <cstdio>

__global__ void fast(float* out) {
  float s, c;
  __sincosf(0.0f, &s, &c);
  out[0] = __exp10f(2.0f);
  out[1] = __log2f(8.0f);
  out[2] = s;
  out[3] = c;
  out[4] = __powf(2.0f, 3.0f);
  out[5] = __fdividef(6.0f, 3.0f);
}

int main() {
  float* out;
  cudaMallocManaged(&out, 6 * sizeof(float));
  fast<<<1, 1>>>(out);
  cudaDeviceSynchronize();
  printf("%.1f %.1f %.2f %.2f %.1f %.1f\n", out[0], out[1], out[2], out[3], out[4], out[5]);
  return 0;
}
