// Shared by kernels.cu (which defines the kernels) and main.cu (which
// launches them): constants, device functions, kernel declarations.
#pragma once

constexpr int kBins = 16;

// Device functions in a header compute on values only: hirace instruments
// the sources it is given, not their headers.
__device__ __forceinline__ int scramble(int i, int seed) { return (i * 2654435761u + seed) >> 7; }
__device__ __forceinline__ int bin_of(int value) { return (value % kBins + kBins) % kBins; }

__global__ void fill(int* data, int n, int seed);
__global__ void histogram_atomic(const int* data, int* hist, int n);
__global__ void histogram_racy(const int* data, int* hist, int n);
