// An out-of-bounds read and a data race in one program. With
// HIRACE_BOUNDS=continue the out-of-bounds read is a finding (not performed,
// it reads 0) and the launch runs to its end, so the race after it, in the
// same kernel, is still found; the program prints the sum it computed.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void shift_sum(const int* in, int* out, int* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int next = in[i + 1];  // reads in[n] for the last thread: one past the end
    out[i] = in[i] + next;
    *total += out[i];  // every thread, no atomic: a race
  }
}

int main() {
  const int n = 64;
  int host[n];
  for (int i = 0; i < n; i++) host[i] = i;
  int *in, *out, *total;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, n * sizeof(int));
  cudaMalloc(&total, sizeof(int));
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemset(total, 0, sizeof(int));
  shift_sum<<<2, 32>>>(in, out, total, n);
  cudaError_t err = cudaDeviceSynchronize();
  int last = 0;
  cudaMemcpy(&last, out + n - 1, sizeof(int), cudaMemcpyDeviceToHost);
  printf("status: %s, last: %d\n", cudaGetErrorString(err), last);
  cudaFree(in);
  cudaFree(out);
  cudaFree(total);
  return 0;
}
