// Allocates, launches the kernels of kernels.cu, prints both histograms.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "common.cuh"

static void print(const char* what, const int* hist) {
  int total = 0;
  printf("%-6s", what);
  for (int b = 0; b < kBins; ++b) {
    printf(" %d", hist[b]);
    total += hist[b];
  }
  printf(" | %d\n", total);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 500;
  int *data, *exact, *racy;
  cudaMalloc(&data, n * sizeof(int));
  cudaMalloc(&exact, kBins * sizeof(int));
  cudaMalloc(&racy, kBins * sizeof(int));
  cudaMemset(exact, 0, kBins * sizeof(int));
  cudaMemset(racy, 0, kBins * sizeof(int));
  int threads = 128, blocks = (n + threads - 1) / threads;
  fill<<<blocks, threads>>>(data, n, 12345);
  histogram_atomic<<<blocks, threads>>>(data, exact, n);
  histogram_racy<<<blocks, threads>>>(data, racy, n);
  int h_exact[kBins], h_racy[kBins];
  cudaMemcpy(h_exact, exact, sizeof h_exact, cudaMemcpyDeviceToHost);
  cudaMemcpy(h_racy, racy, sizeof h_racy, cudaMemcpyDeviceToHost);
  print("atomic", h_exact);
  print("racy", h_racy);
  cudaFree(data);
  cudaFree(exact);
  cudaFree(racy);
  return 0;
}
