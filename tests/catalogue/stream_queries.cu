// Queries of a stream's priority and flags and of the shared memory bank
// size (Professional CUDA C Programming's shared-memory examples print it).
// expect: 1 1 0 0 4
#include <cstdio>

int main() {
  int least = 0, greatest = 0;
  cudaDeviceGetStreamPriorityRange(&least, &greatest);
  cudaStream_t s;
  cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest);
  int priority = 7, legacy_priority = 7;
  unsigned flags = 7, legacy_flags = 7;
  cudaStreamGetPriority(s, &priority);
  cudaStreamGetFlags(s, &flags);
  cudaStreamGetPriority(0, &legacy_priority);
  cudaStreamGetFlags(0, &legacy_flags);
  cudaSharedMemConfig config;
  cudaDeviceGetSharedMemConfig(&config);
  printf("%d %u %d %u %d\n", priority == greatest, flags, legacy_priority, legacy_flags,
         config == cudaSharedMemBankSizeFourByte ? 4 : 8);
  cudaStreamDestroy(s);
  return 0;
}
