// NULL without any #include: nvcc's implicit cuda_runtime.h brings it.
// expect: null
__global__ void touch(int* p) {
  if (p != NULL) p[threadIdx.x] = 1;
}

int main() {
  touch<<<1, 1>>>(NULL);
  cudaDeviceSynchronize();
  return __builtin_printf("null\n") < 0;
}
