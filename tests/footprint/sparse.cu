// Two launches writing a few scattered units of a large array (its shadow
// spans thousands of pages): one unit per block, each on its own shadow page,
// written in the second launch by another block than in the first. Race-free
// only if the scan after the first launch cleared every page a write marked.
__global__ void scatter(int* data, int reversed) {
  if (threadIdx.x != 0) return;
  int b = reversed ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  data[b * 32771] = b;
}

int main() {
  const int n = 1 << 21;
  int* data;
  cudaMalloc(&data, n * sizeof(int));
  scatter<<<64, 32>>>(data, 0);
  scatter<<<64, 32>>>(data, 1);
  cudaDeviceSynchronize();
  cudaFree(data);
  return 0;
}
