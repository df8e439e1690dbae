// sqrt and cos called from host code in a file that includes nothing: nvcc's
// math functions are __host__ __device__.
// expect: 2.00 1.00 3.00
__global__ void root(double* v) { v[threadIdx.x] = sqrt(v[threadIdx.x]); }

int main() {
  double* v;
  cudaMallocManaged(&v, sizeof(double));
  v[0] = 9.0;
  root<<<1, 1>>>(v);
  cudaDeviceSynchronize();
  __builtin_printf("%.2f %.2f %.2f\n", sqrt(4.0), cos(0.0), v[0]);
  return 0;
}
