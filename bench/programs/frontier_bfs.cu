// Breadth-first search by frontiers on a large random graph (CSR): one launch
// per level, each thread expanding one frontier vertex. A vertex is claimed
// with atomicCAS on its visited flag and appended to the next frontier at a
// slot taken with atomicAdd, so every launch is race-free.
// Usage: frontier_bfs VERTICES DEGREE.
#include <vector>
#include "check.h"

__global__ void expand(const int* row, const int* col, const int* frontier, int size,
                       int* visited, int* level, int* next, int* next_size, int depth) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= size) return;
  int v = frontier[i];
  for (int e = row[v]; e < row[v + 1]; ++e) {
    int u = col[e];
    if (atomicCAS(&visited[u], 0, 1) == 0) {
      level[u] = depth + 1;
      next[atomicAdd(next_size, 1)] = u;
    }
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  int degree = argc > 2 ? std::atoi(argv[2]) : 4;
  // Each vertex: an edge to its successor (so all are reached) and degree - 1
  // pseudo-random ones.
  std::vector<int> row(n + 1), col((size_t)n * degree);
  unsigned long long s = 88172645463325252ull;
  for (int v = 0; v < n; ++v) {
    row[v] = v * degree;
    col[(size_t)v * degree] = (v + 1) % n;
    for (int k = 1; k < degree; ++k) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      col[(size_t)v * degree + k] = (int)(s % (unsigned long long)n);
    }
  }
  row[n] = n * degree;
  int *d_row, *d_col, *visited, *level, *front, *next, *next_size;
  CHECK(cudaMalloc(&d_row, sizeof(int) * (n + 1)));
  CHECK(cudaMalloc(&d_col, sizeof(int) * col.size()));
  CHECK(cudaMalloc(&visited, sizeof(int) * n));
  CHECK(cudaMalloc(&level, sizeof(int) * n));
  CHECK(cudaMalloc(&front, sizeof(int) * n));
  CHECK(cudaMalloc(&next, sizeof(int) * n));
  CHECK(cudaMalloc(&next_size, sizeof(int)));
  CHECK(cudaMemcpy(d_row, row.data(), sizeof(int) * (n + 1), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_col, col.data(), sizeof(int) * col.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(visited, 0, sizeof(int) * n));
  CHECK(cudaMemset(level, 0, sizeof(int) * n));
  int one = 1, zero = 0, size = 1, depth = 0;
  CHECK(cudaMemcpy(visited, &one, sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(front, &zero, sizeof(int), cudaMemcpyHostToDevice));
  long long reached = 1;
  while (size > 0) {
    CHECK(cudaMemcpy(next_size, &zero, sizeof(int), cudaMemcpyHostToDevice));
    expand<<<(size + 255) / 256, 256>>>(d_row, d_col, front, size, visited, level, next,
                                        next_size, depth);
    CHECK(cudaMemcpy(&size, next_size, sizeof(int), cudaMemcpyDeviceToHost));
    reached += size;
    int* t = front;
    front = next;
    next = t;
    ++depth;
  }
  std::vector<int> levels(n);
  CHECK(cudaMemcpy(levels.data(), level, sizeof(int) * n, cudaMemcpyDeviceToHost));
  CHECK(cudaGetLastError());
  long long total = 0;
  for (int l : levels) total += l;
  std::printf("bfs %d vertices, degree %d: reached %lld in %d levels, level sum %lld\n", n, degree,
              reached, depth, total);
  for (int* p : {d_row, d_col, visited, level, front, next, next_size}) CHECK(cudaFree(p));
  return 0;
}
