// One counter, incremented by a kernel on each of two streams.
// BUG_NO_EVENT: nothing orders the two kernels.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void bump(int* counter) { *counter = *counter + 1; }

int main() {
  int* d_counter;
  int h_counter = 0;
  cudaStream_t s1, s2;
  cudaEvent_t done;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaEventCreate(&done);
  cudaMalloc(&d_counter, sizeof(int));
  cudaMemset(d_counter, 0, sizeof(int));
  cudaDeviceSynchronize();
  bump<<<1, 1, 0, s1>>>(d_counter);
#ifndef BUG_NO_EVENT
  cudaEventRecord(done, s1);
  cudaStreamWaitEvent(s2, done, 0);
#endif
  bump<<<1, 1, 0, s2>>>(d_counter);
  cudaDeviceSynchronize();
  cudaMemcpy(&h_counter, d_counter, sizeof(int), cudaMemcpyDeviceToHost);
  printf("counter: %d\n", h_counter);
  cudaFree(d_counter);
  cudaEventDestroy(done);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  return 0;
}
