// error: calling the CUDA runtime from device code (dynamic parallelism) (cudaDeviceSynchronize)
// use: cudaDeviceSynchronize
// The runtime API from a __device__ function: clang finds no overload it may
// call there (hirace declares the runtime __host__ only).
__device__ void wait_for_children() { cudaDeviceSynchronize(); }

__global__ void parent(int* a) {
  wait_for_children();
  a[threadIdx.x] = 1;
}

int main() {
  int* a;
  cudaMalloc(&a, 32 * sizeof(int));
  parent<<<1, 32>>>(a);
  cudaDeviceSynchronize();
  return 0;
}
