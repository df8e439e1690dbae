// A method called through an object of template-dependent type (`x.lo()` in
// a template): a call, not a read of a data member named `lo`.
// expect: 3 8
#include <cstdio>

template <class T> struct Range {
  T a, b;
  __device__ T lo() const { return a < b ? a : b; }
  __device__ T hi() const { return a < b ? b : a; }
};

template <class T> __device__ T width(const Range<T>& x) { return x.hi() - x.lo(); }

__global__ void measure(const Range<int>* r, int* out) {
  out[0] = r->lo();
  out[1] = width(*r) + out[0];
}

int main() {
  Range<int>* r;
  int* out;
  cudaMallocManaged(&r, sizeof(Range<int>));
  cudaMallocManaged(&out, 2 * sizeof(int));
  r->a = 8;
  r->b = 3;
  measure<<<1, 1>>>(r, out);
  cudaDeviceSynchronize();
  printf("%d %d\n", out[0], out[1]);
  return 0;
}
