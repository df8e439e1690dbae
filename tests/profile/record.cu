// Every kind of call the host record keeps, once each, in a known order: the
// test reads the record back (`// op:` names the event a line makes).
#include <cstdio>

__device__ int table[4];

__global__ void fill(int* out, const int* in, int n) {
  int i = threadIdx.x;
  if (i < n / 2) out[i] = in[i] + table[i % 4];
}

static void on_host(void* data) { *(int*)data += 1; }

int main() {
  const int n = 64;
  int h[n], r[n], t[4] = {1, 2, 3, 4};
  for (int i = 0; i < n; ++i) h[i] = i;
  int *in, *out, *pinned;
  cudaMalloc(&in, sizeof h);                                            // op: alloc
  cudaMalloc(&out, sizeof r);                                           // op: alloc
  cudaMallocHost(&pinned, sizeof h);                                    // op: alloc
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);                 // op: stream_create
  cudaEvent_t e;
  cudaEventCreate(&e);                                                  // op: event_create
  cudaMemcpyToSymbol(table, t, sizeof t);                               // op: memcpy
  cudaMemcpyAsync(in, h, sizeof h, cudaMemcpyHostToDevice, s);          // op: memcpy
  cudaMemsetAsync(out, 0, sizeof r, s);                                 // op: memset
  fill<<<1, n, 0, s>>>(out, in, n);                                     // op: launch
  cudaEventRecord(e, s);                                                // op: event_record
  cudaStreamWaitEvent(0, e, 0);                                         // op: stream_wait_event
  int calls = 0;
  cudaLaunchHostFunc(s, on_host, &calls);                               // op: host_fn
  cudaStreamSynchronize(s);                                             // op: stream_sync
  cudaMemcpy2D(r, 8 * sizeof(int), out, 8 * sizeof(int), 4 * sizeof(int), 8,
               cudaMemcpyDeviceToHost);                                 // op: memcpy2d
  cudaMemcpy(pinned, out, sizeof r, cudaMemcpyDefault);                 // op: memcpy
  cudaEventSynchronize(e);                                              // op: event_sync
  cudaError_t err = cudaGetLastError();                                 // op: get_last_error
  cudaDeviceSynchronize();                                              // op: device_sync
  printf("%d %d %d %d\n", r[1], pinned[31], calls, (int)err);
  cudaEventDestroy(e);                                                  // op: event_destroy
  cudaStreamDestroy(s);                                                 // op: stream_destroy
  cudaFreeHost(pinned);                                                 // op: free
  cudaFree(in);                                                         // op: free
  cudaFree(out);                                                        // op: free
  cudaFree(out);                                                        // op: free
  return 0;
}
