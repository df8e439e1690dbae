// Host driver of the hirace Indigo-style mini-suite.
//
// A code defines `typedef <type> data_t;`, includes this header, and defines
//   __global__ void test_kernel(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
//   void serial_code(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
//   int verify_result(int* nindex, int* nlist, data_t* data1, data_t* data2,
//                     data_t* ref1, data_t* ref2, int numv)
//
// Usage: ./code GRAPH.egr THREADS_PER_BLOCK BLOCKS
//   Reads the ECL graph (little-endian int32 nodes, edges, nindex[nodes + 1],
//   nlist[edges]); allocates data1 and data2 with max(nodes, edges) elements
//   (edges taken as 1 when the graph has none); sets element 0 of each to 0,
//   then data1[i] = rand() % nodes for every i >= 1, then data2[i] = rand() % edges
//   for every i >= 1 (the C library's rand(), default seed); copies everything to
//   the device, launches test_kernel<<<BLOCKS, THREADS_PER_BLOCK>>> once, copies
//   data1 and data2 back, runs serial_code on host copies of the initial data and
//   prints whether verify_result accepts the kernel's results.
//   THREADS_PER_BLOCK must be a multiple of 32 in [32, 1024] (the warp patterns
//   assume whole warps). Exit status: 0 accepted, 1 rejected, 2 bad input,
//   3 CUDA error.
//
// Built with INDIGO_HOST_ONLY defined (see host_shim.h), the header needs no CUDA
// and its main instead checks serial_code and verify_result on the host: that
// verify_result accepts serial_code's own results and rejects a changed element.

#ifndef INDIGO_CUDA_H
#define INDIGO_CUDA_H

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef INDIGO_HOST_ONLY
#include <cuda_runtime.h>
#endif

__global__ void test_kernel(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv);
void serial_code(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv);
int verify_result(int* nindex, int* nlist, data_t* data1, data_t* data2, data_t* ref1,
                  data_t* ref2, int numv);

struct IndigoGraph {
  int nodes;
  int edges;
  int* nindex;  // nodes + 1 entries
  int* nlist;   // max(edges, 1) entries
};

static void indigo_fail(const char* path, const char* what)
{
  fprintf(stderr, "%s: %s\n", path, what);
  exit(2);
}

// Reads and validates an ECL file; exits with status 2 naming the file on error.
static IndigoGraph indigo_read_ecl(const char* path)
{
  IndigoGraph g;
  FILE* f = fopen(path, "rb");
  if (f == NULL) indigo_fail(path, "cannot open graph file");
  int head[2];
  if (fread(head, sizeof(int), 2, f) != 2) indigo_fail(path, "truncated header");
  g.nodes = head[0];
  g.edges = head[1];
  if (g.nodes < 1) indigo_fail(path, "the graph needs at least one node");
  if (g.edges < 0) indigo_fail(path, "negative edge count");
  g.nindex = (int*)malloc(sizeof(int) * ((size_t)g.nodes + 1));
  g.nlist = (int*)malloc(sizeof(int) * (size_t)std::max(g.edges, 1));
  if (g.nindex == NULL || g.nlist == NULL) indigo_fail(path, "out of memory");
  if (fread(g.nindex, sizeof(int), (size_t)g.nodes + 1, f) != (size_t)g.nodes + 1) {
    indigo_fail(path, "truncated nindex");
  }
  if (fread(g.nlist, sizeof(int), (size_t)g.edges, f) != (size_t)g.edges) {
    indigo_fail(path, "truncated nlist");
  }
  if (fgetc(f) != EOF) indigo_fail(path, "trailing bytes after nlist");
  fclose(f);
  if (g.nindex[0] != 0) indigo_fail(path, "nindex[0] is not 0");
  for (int v = 0; v < g.nodes; v++) {
    if (g.nindex[v] > g.nindex[v + 1]) indigo_fail(path, "nindex is not monotone");
  }
  if (g.nindex[g.nodes] != g.edges) indigo_fail(path, "nindex[nodes] is not the edge count");
  for (int e = 0; e < g.edges; e++) {
    if (g.nlist[e] < 0 || g.nlist[e] >= g.nodes) indigo_fail(path, "nlist entry out of range");
  }
  return g;
}

// The suite's data initialisation: element 0 of each array is 0; then
// data1[i] = rand() % nodes for all i >= 1, then data2[i] = rand() % edges.
static void indigo_init_data(data_t* data1, data_t* data2, int size, int nodes, int edges)
{
  data1[0] = 0;
  data2[0] = 0;
  for (int i = 1; i < size; i++) data1[i] = (data_t)(rand() % nodes);
  for (int i = 1; i < size; i++) data2[i] = (data_t)(rand() % edges);
}

static data_t* indigo_alloc(int size)
{
  data_t* p = (data_t*)malloc(sizeof(data_t) * (size_t)size);
  if (p == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return p;
}

#ifdef INDIGO_HOST_ONLY

int main(int argc, char* argv[])
{
  if (argc != 2) {
    fprintf(stderr, "usage: %s GRAPH.egr (host-only self-check)\n", argv[0]);
    return 2;
  }
  IndigoGraph g = indigo_read_ecl(argv[1]);
  const int edges = g.edges > 0 ? g.edges : 1;
  const int size = std::max(g.nodes, edges);
  data_t* data1 = indigo_alloc(size);
  data_t* data2 = indigo_alloc(size);
  data_t* ref1 = indigo_alloc(size);
  data_t* ref2 = indigo_alloc(size);
  indigo_init_data(data1, data2, size, g.nodes, edges);
  memcpy(ref1, data1, sizeof(data_t) * (size_t)size);
  memcpy(ref2, data2, sizeof(data_t) * (size_t)size);
  serial_code(g.nindex, g.nlist, data1, data2, g.nodes);
  serial_code(g.nindex, g.nlist, ref1, ref2, g.nodes);
  const int same = verify_result(g.nindex, g.nlist, data1, data2, ref1, ref2, g.nodes);
  const data_t keep1 = data1[size - 1];
  data1[size - 1] = data1[size - 1] * 2 + 1;
  const int changed1 = verify_result(g.nindex, g.nlist, data1, data2, ref1, ref2, g.nodes);
  data1[size - 1] = keep1;
  data2[0] = data2[0] * 2 + 1;
  const int changed2 = verify_result(g.nindex, g.nlist, data1, data2, ref1, ref2, g.nodes);
  printf("accepts serial result: %s\n", same == 1 ? "yes" : "no");
  printf("rejects a changed data1 element: %s\n", changed1 == 0 ? "yes" : "no");
  printf("rejects a changed data2 element: %s\n", changed2 == 0 ? "yes" : "no");
  return (same == 1 && changed1 == 0 && changed2 == 0) ? 0 : 1;
}

#else

#define INDIGO_CHECK(call)                                                              \
  do {                                                                                  \
    cudaError_t err_ = (call);                                                          \
    if (err_ != cudaSuccess) {                                                          \
      fprintf(stderr, "CUDA error at %s:%d: %s\n", __FILE__, __LINE__,                  \
              cudaGetErrorString(err_));                                                \
      exit(3);                                                                          \
    }                                                                                   \
  } while (0)

static int indigo_parse_count(const char* text, const char* what)
{
  char* end = NULL;
  const long value = strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > 2147483647L) {
    fprintf(stderr, "bad %s '%s': expected a positive integer\n", what, text);
    exit(2);
  }
  return (int)value;
}

int main(int argc, char* argv[])
{
  if (argc != 4) {
    fprintf(stderr, "usage: %s GRAPH.egr THREADS_PER_BLOCK BLOCKS\n", argv[0]);
    return 2;
  }
  IndigoGraph g = indigo_read_ecl(argv[1]);
  const int threads = indigo_parse_count(argv[2], "threads per block");
  const int blocks = indigo_parse_count(argv[3], "number of blocks");
  if (threads > 1024 || threads % 32 != 0) {
    fprintf(stderr, "threads per block must be a multiple of 32 in [32, 1024], got %d\n", threads);
    return 2;
  }
  const int edges = g.edges > 0 ? g.edges : 1;
  const int size = std::max(g.nodes, edges);
  const size_t bytes = sizeof(data_t) * (size_t)size;
  data_t* data1 = indigo_alloc(size);
  data_t* data2 = indigo_alloc(size);
  data_t* ref1 = indigo_alloc(size);
  data_t* ref2 = indigo_alloc(size);
  indigo_init_data(data1, data2, size, g.nodes, edges);
  memcpy(ref1, data1, bytes);
  memcpy(ref2, data2, bytes);

  int* d_nindex = NULL;
  int* d_nlist = NULL;
  data_t* d_data1 = NULL;
  data_t* d_data2 = NULL;
  INDIGO_CHECK(cudaMalloc((void**)&d_nindex, sizeof(int) * ((size_t)g.nodes + 1)));
  INDIGO_CHECK(cudaMalloc((void**)&d_nlist, sizeof(int) * (size_t)edges));
  INDIGO_CHECK(cudaMalloc((void**)&d_data1, bytes));
  INDIGO_CHECK(cudaMalloc((void**)&d_data2, bytes));
  INDIGO_CHECK(cudaMemcpy(d_nindex, g.nindex, sizeof(int) * ((size_t)g.nodes + 1),
                          cudaMemcpyHostToDevice));
  INDIGO_CHECK(cudaMemcpy(d_nlist, g.nlist, sizeof(int) * (size_t)edges, cudaMemcpyHostToDevice));
  INDIGO_CHECK(cudaMemcpy(d_data1, data1, bytes, cudaMemcpyHostToDevice));
  INDIGO_CHECK(cudaMemcpy(d_data2, data2, bytes, cudaMemcpyHostToDevice));

  test_kernel<<<blocks, threads>>>(d_nindex, d_nlist, d_data1, d_data2, g.nodes);
  INDIGO_CHECK(cudaGetLastError());
  INDIGO_CHECK(cudaDeviceSynchronize());

  INDIGO_CHECK(cudaMemcpy(data1, d_data1, bytes, cudaMemcpyDeviceToHost));
  INDIGO_CHECK(cudaMemcpy(data2, d_data2, bytes, cudaMemcpyDeviceToHost));
  serial_code(g.nindex, g.nlist, ref1, ref2, g.nodes);
  const int ok = verify_result(g.nindex, g.nlist, data1, data2, ref1, ref2, g.nodes);
  printf("verification %s\n", ok ? "passed" : "FAILED");

  cudaFree(d_nindex);
  cudaFree(d_nlist);
  cudaFree(d_data1);
  cudaFree(d_data2);
  free(data1);
  free(data2);
  free(ref1);
  free(ref2);
  free(g.nindex);
  free(g.nlist);
  return ok ? 0 : 1;
}

#endif  // INDIGO_HOST_ONLY

#endif  // INDIGO_CUDA_H
