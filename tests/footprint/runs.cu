// Launches leaving a known pattern of states in one array's shadow: thread i
// does nothing to data[i], reads it, writes it, or reads then writes it, as
// op[i] says (0-3); ops come in runs of 1 to 40 from a fixed generator, and
// each launch has its own. Prints each launch's ops as one line of digits, so
// that a test can derive the footprint the dump must list.
#include <cstdio>
#include <vector>

__global__ void touch(const int* op, int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int o = op[i];
  if (o == 1) {
    if (data[i] < 0) data[0] = 0;  // never true: a read alone
  } else if (o == 2) {
    data[i] = i;
  } else if (o == 3) {
    data[i] = data[i] + 1;
  }
}

int main() {
  const int n = 3000, launches = 3;
  unsigned long long s = 88172645463325252ull;
  int *op, *data;
  cudaMalloc(&op, n * sizeof(int));
  cudaMalloc(&data, n * sizeof(int));
  cudaMemset(data, 0, n * sizeof(int));
  std::vector<int> ops(n);
  for (int l = 0; l < launches; ++l) {
    for (int i = 0; i < n;) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      int len = 1 + (int)(s % 40), o = (int)((s >> 32) % 4);
      for (int k = 0; k < len && i < n; ++k) ops[i++] = o;
    }
    cudaMemcpy(op, ops.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    touch<<<(n + 127) / 128, 128>>>(op, data, n);
    cudaDeviceSynchronize();
    for (int o : ops) std::putchar('0' + o);
    std::putchar('\n');
  }
  cudaFree(op);
  cudaFree(data);
  return 0;
}
