// Kernels that reach device memory through pointers held in memory: a struct
// argument holding a pointer, a pointer to a table of pointers, a pointer to
// void. Such a launch may read and write every allocation (it is *opaque*:
// `// opaque: yes`), so a copy back after one is no round trip, the same bytes
// sent again after one are no duplicate, and an allocation only such kernels
// read is not unused. The one finding (`// expect:`) comes before any opaque
// launch (tests/test_profile.py).
#include <cstdio>

struct Span {
  float* data;
  int n;
};

struct Plain {
  float scale;
  int n;
};

__global__ void scale_span(Span s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.n) s.data[i] *= 2.0f;
}

__global__ void fill_first(float** table, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) table[0][i] = 1.0f + i;
}

__global__ void clear(void* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) static_cast<float*>(p)[i] = 0.0f;
}

__global__ void sum(float* out, const float* in, Plain k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < k.n) atomicAdd(out, k.scale * in[i]);
}

int main() {
  const int n = 1024;
  static float h[n], g[n];
  for (int i = 0; i < n; ++i) h[i] = 0.5f * i, g[i] = 0.25f * i;
  float *a, *b, *c, *total, **table;
  cudaMalloc(&a, sizeof h);
  cudaMalloc(&b, sizeof h);
  cudaMalloc(&c, sizeof h);
  cudaMalloc(&total, sizeof(float));
  cudaMalloc(&table, sizeof(float*));
  // An ordinary launch (a struct holding no pointer): a only read, a round trip.
  cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
  sum<<<n / 256, 256>>>(total, a, Plain{1.0f, n});                       // opaque: no
  cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost);                    // expect: round-trip
  // A kernel writes a through the pointer in its struct argument: a copy back
  // is no round trip, the same bytes sent again no duplicate.
  scale_span<<<n / 256, 256>>>(Span{a, n});                               // opaque: yes
  cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(a, g, sizeof g, cudaMemcpyHostToDevice);
  scale_span<<<n / 256, 256>>>(Span{a, n});                               // opaque: yes
  cudaMemcpy(a, g, sizeof g, cudaMemcpyHostToDevice);
  scale_span<<<n / 256, 256>>>(Span{a, n});                               // opaque: yes
  // b is reached only through a table of pointers: read and written.
  cudaMemcpy(b, g, sizeof g, cudaMemcpyHostToDevice);
  cudaMemcpy(table, &b, sizeof b, cudaMemcpyHostToDevice);
  fill_first<<<n / 256, 256>>>(table, n);                                 // opaque: yes
  cudaMemcpy(g, b, sizeof g, cudaMemcpyDeviceToHost);
  // c through a pointer to void.
  cudaMemcpy(c, h, sizeof h, cudaMemcpyHostToDevice);
  clear<<<n / 256, 256>>>(c, n);                                          // opaque: yes
  cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost);
  float t = 0;
  cudaMemcpy(&t, total, sizeof t, cudaMemcpyDeviceToHost);
  printf("%.1f %.1f %.1f %.1f\n", t, h[n - 1], g[n - 1], g[0]);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(total);
  cudaFree(table);
  return 0;
}
