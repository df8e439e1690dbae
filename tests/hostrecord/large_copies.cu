// Copies larger than the CPU backend's hashing chunk, of sizes that are not a
// multiple of it (nor of XXH3's 64-byte stripes): a blocking and an
// asynchronous host-to-device copy, and the round trip back. The host bytes
// are word i = i * 2654435761 (mod 2^32), which the test rebuilds.
#include <cstdlib>

int main() {
  const size_t words = 25001, bytes = 4 * words - 1;
  unsigned* h = (unsigned*)malloc(4 * words);
  for (size_t i = 0; i < words; ++i) h[i] = (unsigned)(i * 2654435761u);
  unsigned *d, *e;
  cudaMalloc(&d, 4 * words);
  cudaMalloc(&e, 4 * words);
  cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
  cudaMemcpyAsync(e, h, 12345, cudaMemcpyHostToDevice, 0);
  cudaDeviceSynchronize();
  cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d);
  cudaFree(e);
  free(h);
  return 0;
}
