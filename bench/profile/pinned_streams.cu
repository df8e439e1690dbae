// Transfer-heavy: pinned buffers in chunks over two streams, with events
// between the halves of each step.
#include <cstdio>
#include <cstdlib>

__global__ void bump(int* a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += 256 * gridDim.x * blockDim.x)
    a[i] += 1;
}

int main(int argc, char** argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 20;
  const int n = 1 << 20, chunks = 8, c = n / chunks;
  int *h, *d;
  cudaMallocHost(&h, n * sizeof(int));
  cudaMalloc(&d, n * sizeof(int));
  for (int i = 0; i < n; ++i) h[i] = i;
  cudaStream_t st[2];
  cudaEvent_t done[2];
  for (int k = 0; k < 2; ++k) {
    cudaStreamCreate(&st[k]);
    cudaEventCreate(&done[k]);
  }
  for (int s = 0; s < steps; ++s) {
    for (int k = 0; k < chunks; ++k) {
      cudaStream_t q = st[k % 2];
      cudaMemcpyAsync(d + k * c, h + k * c, c * sizeof(int), cudaMemcpyHostToDevice, q);
      bump<<<2, 64, 0, q>>>(d + k * c, c);
      cudaMemcpyAsync(h + k * c, d + k * c, c * sizeof(int), cudaMemcpyDeviceToHost, q);
    }
    for (int k = 0; k < 2; ++k) cudaEventRecord(done[k], st[k]);
    cudaStreamWaitEvent(st[0], done[1], 0);
    cudaEventSynchronize(done[0]);
  }
  cudaDeviceSynchronize();
  printf("%d\n", h[n - 1]);
  for (int k = 0; k < 2; ++k) {
    cudaStreamDestroy(st[k]);
    cudaEventDestroy(done[k]);
  }
  cudaFree(d);
  cudaFreeHost(h);
  return 0;
}
