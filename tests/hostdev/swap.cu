// Two buffers, each a host array and its device copy; each step reads one
// device buffer and writes the other, then the roles swap.
// BUG_WRONG_BUFFER: the result is copied back from the buffer the last step
// read, so the host prints its own stale copy of the one it wrote.
#include <cstdio>
#include <cuda_runtime.h>

#define N 32

struct Buffer {
  float* h;
  float* d;
};

__global__ void smooth(const float* in, float* out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = 0.5f * (in[i] + in[(i + 1) % n]);
}

int main() {
  static float h0[N], h1[N];
  Buffer b[2] = {{h0, nullptr}, {h1, nullptr}};
  for (int i = 0; i < N; ++i) b[0].h[i] = (float)i, b[1].h[i] = 0.0f;
  for (int k = 0; k < 2; ++k) {
    cudaMalloc(&b[k].d, N * sizeof(float));
    cudaMemcpy(b[k].d, b[k].h, N * sizeof(float), cudaMemcpyHostToDevice);
  }
  int cur = 0;
  for (int step = 0; step < 3; ++step) {
    smooth<<<1, N>>>(b[cur].d, b[1 - cur].d, N);
    cur = 1 - cur;
  }
#ifdef BUG_WRONG_BUFFER
  cudaMemcpy(b[1 - cur].h, b[1 - cur].d, N * sizeof(float), cudaMemcpyDeviceToHost);
#else
  cudaMemcpy(b[cur].h, b[cur].d, N * sizeof(float), cudaMemcpyDeviceToHost);
#endif
  printf("result[0] = %g\n", b[cur].h[0]);
  for (int k = 0; k < 2; ++k) cudaFree(b[k].d);
  return 0;
}
