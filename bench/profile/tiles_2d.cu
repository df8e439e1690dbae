// Transfer-heavy with 2D and symbol copies: a pitched image copied in tile
// rows, coefficients copied to a __constant__ table, results copied back.
#include <cstdio>
#include <cstdlib>

__constant__ float coeff[8];

__global__ void blur(float* img, size_t pitch, int w, int h) {
  int y = blockIdx.x;
  float* row = (float*)((char*)img + y * pitch);
  for (int x = threadIdx.x; x < w; x += 16 * blockDim.x) row[x] = row[x] * coeff[x % 8];
}

int main(int argc, char** argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 20;
  const int w = 1024, h = 512;
  float* host = (float*)malloc(w * h * sizeof(float));
  for (int i = 0; i < w * h; ++i) host[i] = (float)(i % 13);
  float* img;
  size_t pitch;
  cudaMallocPitch(&img, &pitch, w * sizeof(float), h);
  float c[8];
  for (int s = 0; s < steps; ++s) {
    for (int k = 0; k < 8; ++k) c[k] = 1.0f + 0.001f * (s + k);
    cudaMemcpyToSymbol(coeff, c, sizeof c);
    cudaMemcpy2D(img, pitch, host, w * sizeof(float), w * sizeof(float), h,
                 cudaMemcpyHostToDevice);
    blur<<<h / 8, 32>>>(img, pitch, w, h / 8);
    cudaMemcpy2D(host, w * sizeof(float), img, pitch, w * sizeof(float), h,
                 cudaMemcpyDeviceToHost);
  }
  printf("%.3f\n", host[w * h - 1]);
  cudaFree(img);
  free(host);
  return 0;
}
