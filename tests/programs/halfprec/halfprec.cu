// Half precision and bfloat16 in kernels: the toolkit's cuda_fp16.h and
// cuda_bf16.h, their atomics, cache-hinted loads, shuffles, math and
// conversions. Every value printed is exact in both types.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <cstring>

// Sums x with atomics of each type; when `racy`, thread 0 stores its value
// instead, unordered with the other threads' atomics.
__global__ void sum(__half *h, __nv_bfloat16 *b, const __half2 *x, int racy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __half2 v = __ldg(&x[i]);
  if (racy && i == 0)
    *h = __low2half(v);
  else
    atomicAdd(h, __low2half(v));
  atomicAdd(b, __float2bfloat16(__high2float(v)));
}

// Each lane takes its right neighbour's value by a shuffle and applies the
// device-only math and conversions.
__global__ void math(const __half *in, float *out) {
  int i = threadIdx.x;
  __half v = in[i];
  __half right = __shfl_down_sync(0xffffffffu, v, 1);
  __nv_bfloat16 b = __float2bfloat16(__half2float(v));
  out[4 * i] = __half2float(hsqrt(__hmul(v, v)));
  out[4 * i + 1] = __half2float(__hfma(v, right, __float2half(0.5f)));
  out[4 * i + 2] = (float)__half2int_rd(__hmul(v, __float2half(-0.5f)));
  out[4 * i + 3] = __bfloat162float(hfloor(__hmul(b, __float2bfloat16(0.25f))));
}

int main(int argc, char **argv) {
  const int n = 64;
  const char *mode = argc > 1 ? argv[1] : "sum";
  if (strcmp(mode, "math") == 0) {
    __half *in;
    float *out;
    cudaMallocManaged(&in, 32 * sizeof(__half));
    cudaMallocManaged(&out, 4 * 32 * sizeof(float));
    for (int i = 0; i < 32; i++) in[i] = __float2half((float)i);
    math<<<1, 32>>>(in, out);
    cudaDeviceSynchronize();
    for (int i = 0; i < 32; i += 9)
      printf("%d: %g %g %g %g\n", i, out[4 * i], out[4 * i + 1], out[4 * i + 2], out[4 * i + 3]);
    cudaFree(in);
    cudaFree(out);
    return 0;
  }
  __half2 *x;
  __half *h;
  __nv_bfloat16 *b;
  cudaMallocManaged(&x, n * sizeof(__half2));
  cudaMallocManaged(&h, sizeof(__half));
  cudaMallocManaged(&b, sizeof(__nv_bfloat16));
  for (int i = 0; i < n; i++) x[i] = __floats2half2_rn(1.0f, 2.0f);
  *h = __float2half(0.0f);
  *b = __float2bfloat16(0.0f);
  sum<<<2, n / 2>>>(h, b, x, strcmp(mode, "racy") == 0);
  cudaDeviceSynchronize();
  printf("%s: %g %g\n", mode, __half2float(*h), __bfloat162float(*b));
  cudaFree(x);
  cudaFree(h);
  cudaFree(b);
  return 0;
}
