// Host code in a header that launches a kernel of kernels.cuh.
#pragma once
#include "kernels.cuh"

inline void reverse_blocks(int* v, int blocks, int threads) {
  reverse_block<<<blocks, threads, threads * sizeof(int)>>>(v);
}
