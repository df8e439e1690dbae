// Shared memory filled by a libcu++ pipeline's asynchronous copy.
// refuses: libcu++ pipelines (#include <cuda/pipeline>)
// warns: libcu++ pipelines (#include <cuda/pipeline>)
// system-code: memcpy_async
#include <cuda/pipeline>

__global__ void stage(const int* in, int* out) {
  __shared__ int tile[64];
  auto pipe = cuda::make_pipeline();
  pipe.producer_acquire();
  cuda::memcpy_async(tile + threadIdx.x, in + threadIdx.x, sizeof(int), pipe);
  pipe.producer_commit();
  pipe.consumer_wait();
  __syncthreads();
  out[threadIdx.x] = tile[63 - threadIdx.x];
  pipe.consumer_release();
}
