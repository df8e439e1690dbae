// Toolkit header reached through a user header: the parse takes it from the
// precompiled toolkit prelude (tests/test_toolkit_pch.py).
#include <cstdio>
#include "counter.h"

__global__ void tally(int* counter, int* slots, int* last) {
  int i = bump(counter);
  slots[i] = threadIdx.x;
  *last = threadIdx.x;  // every thread writes: a race
}

int main() {
  int *counter, *slots, *last;
  cudaMalloc(&counter, sizeof(int));
  cudaMalloc(&slots, 64 * sizeof(int));
  cudaMalloc(&last, sizeof(int));
  cudaMemset(counter, 0, sizeof(int));
  tally<<<1, 64>>>(counter, slots, last);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
