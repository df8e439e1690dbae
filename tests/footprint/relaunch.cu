// Two launches writing one array: in the first thread i writes data[i], in
// the second data[n - 1 - i], so most units are written by threads of other
// blocks than the first launch's writers. Race-free only if each launch
// starts from a clear shadow (kernel boundaries order everything).
__global__ void write_at(int* data, int n, int reversed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[reversed ? n - 1 - i : i] = i;
}

int main() {
  const int n = 4096;
  int* data;
  cudaMalloc(&data, n * sizeof(int));
  write_at<<<n / 128, 128>>>(data, n, 0);
  write_at<<<n / 128, 128>>>(data, n, 1);
  cudaDeviceSynchronize();
  cudaFree(data);
  return 0;
}
