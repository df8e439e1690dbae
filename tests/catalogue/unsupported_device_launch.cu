// error: launching a kernel from device code (dynamic parallelism) (child)
// use: child<<<
// Clang refuses a kernel launched from a kernel without -fgpu-rdc, and hirace
// does not follow child grids either: one line naming the feature.
__global__ void child(int* a) { a[threadIdx.x] = 1; }

__global__ void parent(int* a) {
  if (threadIdx.x == 0) child<<<1, 32>>>(a);
}

int main() {
  int* a;
  cudaMalloc(&a, 32 * sizeof(int));
  parent<<<1, 1>>>(a);
  cudaDeviceSynchronize();
  return 0;
}
