// The host API's error behaviour and less common calls: what each returns is
// printed, so the CPU backend's answers are pinned down (they are CUDA's).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void hello(int tag) {
  if (threadIdx.x < 2) printf("kernel %d thread %d\n", tag, (int)threadIdx.x);
}

__global__ void add(int* x, int v) { x[threadIdx.x] += v; }

static void host_step(void* data) { printf("host function, value %d\n", *(int*)data); }

// Prints a call and what it returned. The call's text is written out: hirace
// rewrites the CUDA calls it records, and `#call` would show the rewrite.
#define SHOW_AS(text, call) printf("%-44s %s\n", text, cudaGetErrorName(call))

int main() {
  printf("before the kernel\n");
  hello<<<1, 32>>>(1);
  cudaDeviceSynchronize();
  printf("after the kernel\n");

  int* x;
  cudaError_t err = cudaMalloc(&x, 4 * sizeof(int));
  SHOW_AS("cudaMalloc(&x, 4 * sizeof(int))", err);
  int h[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  SHOW_AS("cudaMemcpy(x, h, 4 * sizeof(int), cudaMemcpyHostToDevice)",
          cudaMemcpy(x, h, 4 * sizeof(int), cudaMemcpyHostToDevice));
  SHOW_AS("cudaMemcpy(x, h, 8 * sizeof(int), cudaMemcpyHostToDevice)",
          cudaMemcpy(x, h, 8 * sizeof(int), cudaMemcpyHostToDevice));
  SHOW_AS("cudaMemcpy(x, h, sizeof(int), (cudaMemcpyKind)7)",
          cudaMemcpy(x, h, sizeof(int), (cudaMemcpyKind)7));
  SHOW_AS("cudaMemset(x + 2, 0, 4 * sizeof(int))",
          cudaMemset(x + 2, 0, 4 * sizeof(int)));

  void* args[] = {&x, &h[4]};
  SHOW_AS("cudaLaunchKernel((const void*)add, dim3(1), dim3(4), args, 0, nullptr)",
          cudaLaunchKernel((const void*)add, dim3(1), dim3(4), args, 0, nullptr));
  SHOW_AS("cudaMemcpy(h, x, 4 * sizeof(int), cudaMemcpyDeviceToHost)",
          cudaMemcpy(h, x, 4 * sizeof(int), cudaMemcpyDeviceToHost));
  printf("x = %d %d %d %d\n", h[0], h[1], h[2], h[3]);

  size_t pitch = 0;
  float* grid;
  SHOW_AS("cudaMallocPitch(&grid, &pitch, 10 * sizeof(float), 3)",
          cudaMallocPitch(&grid, &pitch, 10 * sizeof(float), 3));
  float rows[3][10] = {};
  rows[2][9] = 42.0f;
  SHOW_AS("cudaMemcpy2D(grid, pitch, rows, sizeof rows[0], sizeof rows[0], 3, cudaMemcpyHostToDevice)",
          cudaMemcpy2D(grid, pitch, rows, sizeof rows[0], sizeof rows[0], 3,
                    cudaMemcpyHostToDevice));
  float back = 0;
  SHOW_AS("cudaMemcpy(&back, (char*)grid + 2 * pitch + 9 * sizeof(float), sizeof back, cudaMemcpyDeviceToHost)",
          cudaMemcpy(&back, (char*)grid + 2 * pitch + 9 * sizeof(float), sizeof back,
                  cudaMemcpyDeviceToHost));
  printf("pitch %zu, grid[2][9] = %g\n", pitch, back);

  cudaStream_t s;
  cudaEvent_t e1, e2;
  float ms = 0;
  SHOW_AS("cudaStreamCreate(&s)",
          cudaStreamCreate(&s));
  SHOW_AS("cudaEventCreate(&e1)",
          cudaEventCreate(&e1));
  SHOW_AS("cudaEventCreateWithFlags(&e2, cudaEventDisableTiming)",
          cudaEventCreateWithFlags(&e2, cudaEventDisableTiming));
  SHOW_AS("cudaEventElapsedTime(&ms, e1, e1)",
          cudaEventElapsedTime(&ms, e1, e1));
  SHOW_AS("cudaEventRecord(e1, s)",
          cudaEventRecord(e1, s));
  SHOW_AS("cudaEventRecord(e2, s)",
          cudaEventRecord(e2, s));
  SHOW_AS("cudaEventElapsedTime(&ms, e1, e2)",
          cudaEventElapsedTime(&ms, e1, e2));
  SHOW_AS("cudaLaunchHostFunc(s, host_step, &h[1])",
          cudaLaunchHostFunc(s, host_step, &h[1]));
  SHOW_AS("cudaStreamSynchronize(s)",
          cudaStreamSynchronize(s));
  SHOW_AS("cudaStreamDestroy(s)",
          cudaStreamDestroy(s));
  SHOW_AS("cudaStreamDestroy(s)",
          cudaStreamDestroy(s));

  err = cudaFree(grid);
  SHOW_AS("cudaFree(grid)", err);
  err = cudaFree(x);
  SHOW_AS("cudaFree(x)", err);
  err = cudaFree(x);
  SHOW_AS("cudaFree(x) again", err);
  printf("last error now: %s\n", cudaGetErrorName(cudaPeekAtLastError()));
  cudaError_t first = cudaGetLastError(), second = cudaGetLastError();
  printf("cudaGetLastError: %s, then %s\n", cudaGetErrorName(first), cudaGetErrorName(second));
  return 0;
}
