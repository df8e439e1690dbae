// Jacobi iterations of a 5-point stencil on a large 2-D grid, two buffers
// swapped between launches, 16x16 blocks. Usage: jacobi SIDE ITERATIONS.
#include <vector>
#include "check.h"

__global__ void jacobi(const float* in, float* out, int side) {
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x >= side || y >= side) return;
  long long i = (long long)y * side + x;
  if (x == 0 || y == 0 || x == side - 1 || y == side - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - side] + in[i + side]);
}

int main(int argc, char** argv) {
  int side = argc > 1 ? std::atoi(argv[1]) : 256;
  int iterations = argc > 2 ? std::atoi(argv[2]) : 4;
  size_t cells = (size_t)side * side;
  std::vector<float> host(cells, 0.0f);
  for (int x = 0; x < side; ++x) host[x] = 1.0f;  // a hot top edge
  float *a, *b;
  CHECK(cudaMalloc(&a, sizeof(float) * cells));
  CHECK(cudaMalloc(&b, sizeof(float) * cells));
  CHECK(cudaMemcpy(a, host.data(), sizeof(float) * cells, cudaMemcpyHostToDevice));
  dim3 block(16, 16), grid((side + 15) / 16, (side + 15) / 16);
  for (int it = 0; it < iterations; ++it) {
    jacobi<<<grid, block>>>(a, b, side);
    float* t = a;
    a = b;
    b = t;
  }
  CHECK(cudaMemcpy(host.data(), a, sizeof(float) * cells, cudaMemcpyDeviceToHost));
  CHECK(cudaGetLastError());
  double sum = 0.0;
  for (float v : host) sum += v;
  std::printf("jacobi %d x %d, %d iterations, sum %.4f\n", side, side, iterations, sum);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return 0;
}
