// PTX assembly in a kernel: the host's assembler cannot take it, so the CPU
// backend refuses it in one line; an empty template (a compiler barrier) is
// fine there.
// refuses: inline PTX assembly (asm)
__global__ void lane(unsigned* out) {
  unsigned id;
  asm("mov.u32 %0, %%laneid;" : "=r"(id));
  asm volatile("" ::: "memory");
  out[threadIdx.x] = id;
}

int main() {
  unsigned* out;
  cudaMallocManaged(&out, 32 * sizeof(unsigned));
  lane<<<1, 32>>>(out);
  cudaDeviceSynchronize();
  return 0;
}
