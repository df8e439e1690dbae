// Only <stdio.h>: nvcc's cuda_runtime.h pulls in <stdlib.h>, <string.h> and
// <time.h>, so malloc, free, exit, memcpy, strlen, strcmp and time are declared.
// expect: 5 1 ok
#include <stdio.h>

__global__ void fill(char* s) { s[threadIdx.x] = 'a' + threadIdx.x; }

int main() {
  char* host = (char*)malloc(8);
  char* dev;
  cudaMalloc(&dev, 8);
  fill<<<1, 5>>>(dev);
  cudaMemcpy(host, dev, 5, cudaMemcpyDeviceToHost);
  host[5] = 0;
  char copy[8];
  memcpy(copy, host, 6);
  if (time(NULL) == (time_t)-1) exit(1);
  printf("%d %d %s\n", (int)strlen(copy), strcmp(copy, "abcde") == 0, "ok");
  free(host);
  cudaFree(dev);
  return 0;
}
