// Peer copies, an IPC handle and a memory pool: runtime functions the GPU has.
// refuses: this runtime API function (cudaDeviceEnablePeerAccess)
// warns: this runtime API function (cudaMemcpyPeer)
// warns: inter-process memory handles (cudaIpcGetMemHandle)
// warns: memory pools (cudaMemPoolCreate)
#include <cuda_runtime.h>

int main() {
  float *a, *b;
  cudaDeviceEnablePeerAccess(1, 0);
  cudaMalloc(&a, 256);
  cudaMalloc(&b, 256);
  cudaMemcpyPeer(b, 1, a, 0, 256);
  cudaIpcMemHandle_t handle;
  cudaIpcGetMemHandle(&handle, a);
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  cudaMemPool_t pool;
  cudaMemPoolCreate(&pool, &props);
  cudaMemPoolDestroy(pool);
  return 0;
}
