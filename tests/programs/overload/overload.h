// Two kernels of one name (CUDA allows overloads): the call picks one by its
// arguments' types. A header, as a helper library would define them.
#pragma once

__global__ void scale(float* a, float s) { a[threadIdx.x] *= s; }

__global__ void scale(int* a, int s) {
#ifdef RACY
  a[0] += s;  // every thread: a read-write race
#else
  a[threadIdx.x] *= s;
#endif
}
