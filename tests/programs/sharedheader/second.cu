// Its own accesses come first in its tables, then counter.cuh's.
#include "counter.cuh"

__global__ void second_kernel(int* data, int* counter) {
  data[threadIdx.x] = threadIdx.x;
  if (data[threadIdx.x] % 2 == 0) bump(counter);
}
