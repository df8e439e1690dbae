// Repeated allocation: a scratch buffer of the same size is allocated and
// freed on every step.
#include <cstdio>

__global__ void offset(int* out, const int* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + i;
}

int main() {
  const int n = 256;
  int h[n], r[n];
  int* out;
  cudaMalloc(&out, sizeof r);
  long total = 0;
  for (int step = 0; step < 5; ++step) {
    for (int i = 0; i < n; ++i) h[i] = step * i;
    int* scratch;
    cudaMalloc(&scratch, sizeof h);  // expect: repeated-allocation
    cudaMemcpy(scratch, h, sizeof h, cudaMemcpyHostToDevice);
    offset<<<1, n>>>(out, scratch, n);
    cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
    cudaFree(scratch);
    total += r[n - 1];
  }
  printf("total %ld\n", total);
  cudaFree(out);
  return 0;
}
