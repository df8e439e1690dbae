// A device method called through a base-class pointer whose declaration is
// pure virtual: the call gets hirace's thread argument, so the pure virtual
// declaration needs the thread-taking overload too.
// expect: 10
#include <cstdio>

struct Accumulator {
  __device__ virtual ~Accumulator() {}
  __device__ virtual void add(int v) = 0;
  __device__ virtual int total() const = 0;
};

struct Sum : Accumulator {
  int* cell;
  __device__ explicit Sum(int* c) : cell(c) {}
  __device__ void add(int v) override { atomicAdd(cell, v); }
  __device__ int total() const override { return *cell; }
};

__global__ void make(Accumulator** slot, int* cell) {
  if (threadIdx.x == 0) *slot = new Sum(cell);
}

__global__ void fill(Accumulator** slot, int* out) {
  (*slot)->add(threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = (*slot)->total();
}

__global__ void destroy(Accumulator** slot) {
  if (threadIdx.x == 0) delete *slot;
}

int main() {
  Accumulator** slot;
  int *cell, *out;
  cudaMalloc(&slot, sizeof(Accumulator*));
  cudaMallocManaged(&cell, sizeof(int));
  cudaMallocManaged(&out, sizeof(int));
  *cell = 0;
  make<<<1, 1>>>(slot, cell);
  fill<<<1, 5>>>(slot, out);
  destroy<<<1, 1>>>(slot);
  cudaDeviceSynchronize();
  printf("%d\n", out[0]);
  return 0;
}
