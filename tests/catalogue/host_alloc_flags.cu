// cudaMallocHost with flags (cuda_runtime.h's overloads), also from a member
// template, as the developer-blog printf-alternative sample calls it.
// expect: 3 2
#include <cstdio>

template <typename T>
struct Mapped {
  T* host = nullptr;
  cudaError_t make() { return cudaMallocHost(&host, sizeof(T), cudaHostAllocMapped); }
};

int main() {
  int* p;
  if (cudaMallocHost(&p, sizeof(int), cudaHostAllocMapped) != cudaSuccess) return 1;
  *p = 3;
  Mapped<float> m;
  if (m.make() != cudaSuccess) return 1;
  *m.host = 2.0f;
  printf("%d %g\n", *p, *m.host);
  cudaFreeHost(p);
  cudaFreeHost(m.host);
  return 0;
}
