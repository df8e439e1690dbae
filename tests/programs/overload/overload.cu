#include <cstdio>
#include "overload.h"

int main() {
  float hf[4] = {1, 2, 3, 4};
  int hi[4] = {1, 2, 3, 4};
  float* f;
  int* i;
  cudaMalloc(&f, sizeof hf);
  cudaMalloc(&i, sizeof hi);
  cudaMemcpy(f, hf, sizeof hf, cudaMemcpyHostToDevice);
  cudaMemcpy(i, hi, sizeof hi, cudaMemcpyHostToDevice);
  scale<<<1, 4>>>(f, 0.5f);
  scale<<<1, 4>>>(i, 3);
  cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
  cudaMemcpy(hi, i, sizeof hi, cudaMemcpyDeviceToHost);
  printf("%g %g %g %g / %d %d %d %d\n", hf[0], hf[1], hf[2], hf[3], hi[0], hi[1], hi[2], hi[3]);
  cudaFree(f);
  cudaFree(i);
  return 0;
}
