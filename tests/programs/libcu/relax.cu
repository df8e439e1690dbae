// Shortest hop counts by repeated edge relaxation, one thread per edge, until
// nothing changes (see atomics.h for the three ways the distances are kept).
#include <cstdio>
#include "atomics.h"

static const int N = 4;
static const int E = 4;

__global__ void init(data_type* dist, int src)
{
  int v = threadIdx.x;
  if (v < N) {
#if defined(PLAIN) || defined(CAST)
    put(&dist[v], v == src ? 0 : 1000);
#else
    const data_type temp = (v == src) ? 0 : 1000;
    dist[v].store(temp);
#endif
  }
}

__global__ void relax(const int* from, const int* to, data_type* dist, int* changed)
{
  int e = threadIdx.x;
  if (e < E) {
#if defined(PLAIN)
    int s = get(&dist[from[e]]);
    int d = get(&dist[to[e]]);
    if (s + 1 < d) {
      put(&dist[to[e]], s + 1);
      atomicExch(changed, 1);
    }
#elif defined(CAST)
    int s = get(&dist[from[e]]);
    if (lower((cuda::atomic<int>*)&dist[to[e]], s + 1)) atomicExch(changed, 1);
#else
    const data_type s = dist[from[e]].load();
    if (dist[to[e]].fetch_min(s + 1, cuda::memory_order_relaxed) > s + 1) atomicExch(changed, 1);
#endif
  }
}

int main()
{
  const int from[E] = {0, 0, 1, 2}, to[E] = {1, 2, 3, 3};
  int *d_from, *d_to, *d_changed;
  data_type* d_dist;
  cudaMalloc((void**)&d_from, sizeof(from));
  cudaMalloc((void**)&d_to, sizeof(to));
  cudaMalloc((void**)&d_changed, sizeof(int));
  cudaMalloc((void**)&d_dist, N * sizeof(data_type));
  cudaMemcpy(d_from, from, sizeof(from), cudaMemcpyHostToDevice);
  cudaMemcpy(d_to, to, sizeof(to), cudaMemcpyHostToDevice);
  init<<<1, 32>>>(d_dist, 0);
  int changed = 1, rounds = 0;
  while (changed) {
    cudaMemset(d_changed, 0, sizeof(int));
    relax<<<1, 32>>>(d_from, d_to, d_dist, d_changed);
    cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost);
    ++rounds;
  }
  int dist[N];
  cudaMemcpy(dist, d_dist, sizeof(dist), cudaMemcpyDeviceToHost);
  printf("dist %d %d %d %d after %d rounds\n", dist[0], dist[1], dist[2], dist[3], rounds);
  return 0;
}
