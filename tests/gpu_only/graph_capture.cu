// Kernels launched through a CUDA graph captured from a stream.
// refuses: CUDA graphs (cudaGraph_t)
// warns: CUDA graphs (cudaStreamBeginCapture)
// warns: CUDA graphs (cudaGraphLaunch)
#include <cuda_runtime.h>

__global__ void bump(int* counter) { counter[threadIdx.x] += 1; }

int main() {
  int* counter;
  cudaMalloc(&counter, 32 * sizeof(int));
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaGraph_t graph;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  bump<<<1, 32, 0, stream>>>(counter);
  cudaStreamEndCapture(stream, &graph);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, stream);
  cudaStreamSynchronize(stream);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFree(counter);
  return 0;
}
