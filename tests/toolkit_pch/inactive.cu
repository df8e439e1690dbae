// A toolkit header behind `#if 0` must stay unseen (tests/test_toolkit_pch.py).
#include <cuda/atomic>
#if 0
#include <cuda/std/array>
#endif

__global__ void fill(int* out) {
  cuda::std::array<int, 2> pair{1, 2};
  out[threadIdx.x] = pair[0];
}
