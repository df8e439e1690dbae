// Included by main.cu as a source file, and also given to the build as a source.
__global__ void scale(int* v, int factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= factor;
}

template <class T>
__global__ void shift(T* v, T by, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] + by;
}
