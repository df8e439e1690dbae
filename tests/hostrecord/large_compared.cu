// Copies larger than the CPU backend's chunk, compared with what the device
// place holds as they are made (templates/hirace_host.h.j2, HIRACE_COMPARE):
// the same bytes again (a duplicate: nothing is copied), then bytes that
// differ from the place's in the first, a middle or the last (partial)
// chunk only, then the same again. Exits 1 if after a copy the place does
// not hold the host's bytes.
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main() {
  const size_t bytes = 100001;
  unsigned char* h = (unsigned char*)std::malloc(bytes);
  unsigned char* back = (unsigned char*)std::malloc(bytes);
  for (size_t i = 0; i < bytes; ++i) h[i] = (unsigned char)(i * 7 + i / 251);
  unsigned char* d;
  cudaMalloc(&d, bytes);
  const size_t changes[] = {bytes, bytes, 0, bytes / 2, bytes - 1, bytes};  // bytes: none
  for (size_t k : changes) {
    if (k < bytes) h[k] ^= 0x5a;
    cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(back, d, bytes, cudaMemcpyDeviceToHost);
    if (std::memcmp(back, h, bytes) != 0) {
      std::printf("the place does not hold the bytes copied (change at %zu)\n", k);
      return 1;
    }
  }
  cudaFree(d);
  std::free(h);
  std::free(back);
  return 0;
}
