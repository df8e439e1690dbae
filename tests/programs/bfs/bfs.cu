// Breadth-first levels by relaxation until nothing changes: the host launches
// two kernels per round and copies a flag back to decide whether to go on.
// The levels are double-buffered (read `in`, lower `out` with atomicMin), so
// every launch is race-free; the same elements are written by different
// threads in different launches, which must not be reported.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t err_ = (call);                                               \
    if (err_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                     \
              cudaGetErrorString(err_));                                     \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

constexpr int kUnreached = 1 << 30;

__global__ void copy_levels(const int* in, int* out, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < n) out[v] = in[v];
}

__global__ void relax(const int* row, const int* col, const int* in, int* out, int* changed,
                      int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  int level = in[v];
  if (level == kUnreached) return;
  for (int e = row[v]; e < row[v + 1]; ++e) {
    int u = col[e];
    if (level + 1 < in[u]) {
      atomicMin(&out[u], level + 1);
      atomicExch(changed, 1);
    }
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200;
  // A ring with one-way chords: v -> v+1, v -> v-1, v -> (7v + 3) mod n.
  std::vector<int> row(n + 1), col;
  for (int v = 0; v < n; ++v) {
    row[v] = (int)col.size();
    col.push_back((v + 1) % n);
    col.push_back((v + n - 1) % n);
    col.push_back((7 * v + 3) % n);
  }
  row[n] = (int)col.size();
  std::vector<int> levels(n, kUnreached);
  levels[0] = 0;

  int *d_row, *d_col, *d_in, *d_out, *d_changed;
  CHECK(cudaMalloc(&d_row, (n + 1) * sizeof(int)));
  CHECK(cudaMalloc(&d_col, col.size() * sizeof(int)));
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_changed, sizeof(int)));
  CHECK(cudaMemcpy(d_row, row.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_col, col.data(), col.size() * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_in, levels.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  int threads = 64, blocks = (n + threads - 1) / threads, rounds = 0, changed = 1;
  while (changed) {
    CHECK(cudaMemset(d_changed, 0, sizeof(int)));
    copy_levels<<<blocks, threads>>>(d_in, d_out, n);
    relax<<<blocks, threads>>>(d_row, d_col, d_in, d_out, d_changed, n);
    CHECK(cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost));
    int* t = d_in;
    d_in = d_out;
    d_out = t;
    ++rounds;
  }
  CHECK(cudaMemcpy(levels.data(), d_in, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long total = 0;
  int deepest = 0, reached = 0;
  for (int v = 0; v < n; ++v) {
    if (levels[v] == kUnreached) continue;
    ++reached;
    total += levels[v];
    if (levels[v] > deepest) deepest = levels[v];
  }
  printf("nodes %d reached %d rounds %d deepest %d total %lld\n", n, reached, rounds, deepest,
         total);
  cudaFree(d_row);
  cudaFree(d_col);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_changed);
  return 0;
}
