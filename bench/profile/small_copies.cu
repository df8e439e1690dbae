// Call-heavy: many small copies of parameters and results (64 bytes each),
// the per-call cost of the record dominating.
#include <cstdio>
#include <cstdlib>

__global__ void step(float* state, const float* params) {
  int i = threadIdx.x;
  state[i] = state[i] * params[i % 16] + 1.0f;
}

int main(int argc, char** argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 20;
  float params[16], out[16];
  float *dp, *ds;
  cudaMalloc(&dp, sizeof params);
  cudaMalloc(&ds, 32 * sizeof(float));
  cudaMemset(ds, 0, 32 * sizeof(float));
  float sum = 0;
  for (int s = 0; s < steps * 500; ++s) {
    for (int i = 0; i < 16; ++i) params[i] = 0.5f + (s % 7) * 0.01f;
    cudaMemcpy(dp, params, sizeof params, cudaMemcpyHostToDevice);
    step<<<1, 32>>>(ds, dp);
    cudaMemcpy(out, ds, sizeof out, cudaMemcpyDeviceToHost);
    sum += out[s % 16];
  }
  printf("%.3f\n", sum);
  cudaFree(dp);
  cudaFree(ds);
  return 0;
}
