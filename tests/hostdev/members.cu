// Managed structs written and read member by member on the host, a member
// function called on an element (a call, not a member access: it must build),
// and a kernel that takes one by reference.
// BUG_NO_INIT: the kernel reads a scale the host never set.
// BUG_NO_SYNC: the host reads the count before the kernels are known done.
#include <cstdio>
#include <cuda_runtime.h>

struct Particle {
  float x, v;
  float speed() const { return v; }
};
struct Stats {
  int count;
  float scale;
  float sum;
};

__global__ void step(Particle* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i].x += p[i].v;
}

__global__ void total(const Particle* p, int n, Stats& s) {
  float t = 0.0f;
  for (int i = 0; i < n; ++i) t += p[i].x;
  s.sum = t * s.scale;
  s.count = n;
}

int main() {
  const int n = 64;
  Particle* p;
  Stats* s;
  cudaMallocManaged(&p, n * sizeof(Particle));
  cudaMallocManaged(&s, sizeof(Stats));
  for (int i = 0; i < n; ++i) {
    p[i].x = 0.0f;
    p[i].v = 1.0f;
  }
#ifndef BUG_NO_INIT
  s->scale = 0.5f;
#endif
  step<<<n / 32, 32>>>(p, n);
  total<<<1, 1>>>(p, n, *s);
#ifndef BUG_NO_SYNC
  cudaDeviceSynchronize();
#endif
  printf("%d %g %g %g\n", s->count, s->sum, p[3].x, p[3].speed());
  cudaFree(p);
  cudaFree(s);
  return 0;
}
