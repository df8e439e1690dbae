// Which copies the runtime hashes: those a pattern of the transfer profile
// can compare (`// hash: yes`), and no others (`// hash: no`): every
// host-to-device copy into device memory; a device-to-host copy only when the
// last host-to-device copy into that exact place (allocation, offset, bytes)
// came from its destination (tests/test_profile.py).
#include <cstdio>

__device__ float table[4];

__global__ void twice(float* out, const float* in, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

int main() {
  const int n = 64;
  float h[n], r[n], t[4] = {1, 2, 3, 4};
  for (int i = 0; i < n; ++i) h[i] = 0.25f * i;
  float *in, *out, *pinned, *other;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof r);
  cudaMallocHost(&pinned, sizeof h);
  cudaMallocHost(&other, sizeof h);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);                  // hash: yes
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);                  // hash: yes
  twice<<<1, n>>>(out, in, n);
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);                 // hash: no
  cudaMemcpy(h, in, sizeof h, cudaMemcpyDeviceToHost);                  // hash: yes
  cudaMemcpy(r, in, sizeof r, cudaMemcpyDeviceToHost);                  // hash: no
  cudaMemcpy(in + 16, h + 16, 64, cudaMemcpyHostToDevice);              // hash: yes
  cudaMemcpy(h + 16, in + 16, 64, cudaMemcpyDeviceToHost);              // hash: yes
  cudaMemcpy(h + 16, in + 16, 128, cudaMemcpyDeviceToHost);             // hash: no
  cudaMemcpy(h, in + 16, 64, cudaMemcpyDeviceToHost);                   // hash: no
  cudaMemcpy(in, h, sizeof h, cudaMemcpyDefault);                       // hash: yes
  cudaMemcpy(h, in, sizeof h, cudaMemcpyDefault);                       // hash: yes
  cudaMemcpy(in, pinned, sizeof h, cudaMemcpyHostToDevice);             // hash: yes
  cudaMemcpy(pinned, in, sizeof h, cudaMemcpyDeviceToHost);             // hash: yes
  cudaMemcpy(other, pinned, sizeof h, cudaMemcpyDefault);               // hash: no
  cudaMemcpy(out, in, sizeof h, cudaMemcpyDeviceToDevice);              // hash: no
  cudaMemcpy(r, h, sizeof h, cudaMemcpyHostToHost);                     // hash: no
  cudaMemcpy2D(in, 8 * sizeof(float), h, 8 * sizeof(float), 4 * sizeof(float), 8,
               cudaMemcpyHostToDevice);                                 // hash: yes
  cudaMemcpy2D(h, 8 * sizeof(float), in, 8 * sizeof(float), 4 * sizeof(float), 8,
               cudaMemcpyDeviceToHost);                                 // hash: yes
  cudaMemcpyToSymbol(table, t, sizeof t);                               // hash: yes
  cudaMemcpyFromSymbol(t, table, sizeof t);                             // hash: yes
  cudaMemcpyFromSymbol(r, table, sizeof t);                             // hash: no
  cudaFree(in);
  float* again;
  cudaMalloc(&again, sizeof h);  // a new allocation, perhaps at in's address
  cudaMemcpy(h, again, sizeof h, cudaMemcpyDeviceToHost);               // hash: no
  printf("%.2f %.2f %.2f\n", h[n - 1], r[n - 1], t[3]);
  cudaFree(again);
  cudaFree(out);
  cudaFreeHost(pinned);
  cudaFreeHost(other);
  return 0;
}
