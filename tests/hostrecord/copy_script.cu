// Runs a script of copies, memsets, launches and host writes read from the
// file argv[1], six integers an operation: tests/test_profile.py generates
// scripts with Hypothesis and checks that the transfer profile finds the same
// when the runtime compares copies as when it hashes them. Every operation
// has two call sites (the first integer's low bit picks one), so that
// findings at different steps are told apart. Copies of 64 bytes are hashed
// even where copies are compared (kHashedBytes), larger ones compared.
#include <cstdio>
#include <cstring>

__device__ unsigned char symbol[2048];

__global__ void fill(unsigned char* p, int lo, int hi, int value) {
  for (int i = lo + (int)threadIdx.x; i < hi; i += (int)blockDim.x) p[i] = (unsigned char)value;
}

__global__ void look(const unsigned char* p, int n) {
  volatile int sum = 0;
  for (int i = (int)threadIdx.x; i < n; i += (int)blockDim.x) sum = sum + p[i];
}

// Writes a __device__ variable no argument points to.
__global__ void poke(int i, int value) { symbol[i] = (unsigned char)value; }

// Writes through a pointer held in its struct argument (an opaque launch).
struct Target {
  unsigned char* p;
};
__global__ void fill_through(Target t, int lo, int hi, int value) {
  for (int i = lo + (int)threadIdx.x; i < hi; i += (int)blockDim.x) t.p[i] = (unsigned char)value;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: copy_script SCRIPT\n");
    return 2;
  }
  std::FILE* script = std::fopen(argv[1], "r");
  if (!script) {
    std::perror(argv[1]);
    return 2;
  }
  unsigned char *a, *b, *managed, *pinned;
  static unsigned char h0[4096], h1[4096];
  cudaMalloc(&a, 4096);
  cudaMalloc(&b, 4096);
  cudaMallocManaged(&managed, 4096);
  cudaMallocHost(&pinned, 4096);
  cudaMemset(a, 0, 4096);
  cudaMemset(b, 0, 4096);
  cudaMemset(managed, 0, 4096);
  // Blocks of 64 bytes told apart (h0), alike two by two (h1), all alike (pinned).
  for (int i = 0; i < 4096; ++i) {
    h0[i] = (unsigned char)(i / 64);
    h1[i] = (unsigned char)(i / 64 % 2);
  }
  std::memset(pinned, 0, 4096);
  unsigned char* dev[] = {a, b, managed};
  unsigned char* host[] = {h0, h1, pinned, managed};  // host code may write managed memory
  int op, x, off, y, hoff, n;
  while (std::fscanf(script, "%d %d %d %d %d %d", &op, &x, &off, &y, &hoff, &n) == 6) {
    bool first = (op & 1) == 0;
    switch (op >> 1) {
      case 0:  // dev[x] + off <- host[y] + hoff, n bytes
        if (first)
          cudaMemcpy(dev[x] + off, host[y] + hoff, n, cudaMemcpyHostToDevice);
        else
          cudaMemcpy(dev[x] + off, host[y] + hoff, n, cudaMemcpyHostToDevice);
        break;
      case 1:  // host[y] + hoff <- dev[x] + off, n bytes
        if (first)
          cudaMemcpy(host[y] + hoff, dev[x] + off, n, cudaMemcpyDeviceToHost);
        else
          cudaMemcpy(host[y] + hoff, dev[x] + off, n, cudaMemcpyDeviceToHost);
        break;
      case 2:  // symbol + off <- host[y] + hoff
        if (first)
          cudaMemcpyToSymbol(symbol, host[y] + hoff, n, off);
        else
          cudaMemcpyToSymbol(symbol, host[y] + hoff, n, off);
        break;
      case 3:  // host[y] + hoff <- symbol + off
        if (first)
          cudaMemcpyFromSymbol(host[y] + hoff, symbol, n, off);
        else
          cudaMemcpyFromSymbol(host[y] + hoff, symbol, n, off);
        break;
      case 4:  // dev[x] + off <- dev[y] + hoff
        if (first)
          cudaMemcpy(dev[x] + off, dev[y] + hoff, n, cudaMemcpyDeviceToDevice);
        else
          cudaMemcpy(dev[x] + off, dev[y] + hoff, n, cudaMemcpyDeviceToDevice);
        break;
      case 5:  // dev[x] + off: n bytes of y
        if (first)
          cudaMemset(dev[x] + off, y, n);
        else
          cudaMemset(dev[x] + off, y, n);
        break;
      case 6:  // host code: host[y] + hoff, n bytes of x
        std::memset(host[y] + hoff, x, n);
        break;
      case 7:  // a kernel writes bytes [off, off + n) of dev[x] with y
        if (first)
          fill<<<1, 32>>>(dev[x], off, off + n, y);
        else
          fill<<<1, 32>>>(dev[x], off, off + n, y);
        break;
      case 8:  // a kernel reads dev[x]
        if (first)
          look<<<1, 32>>>(dev[x], 4096);
        else
          look<<<1, 32>>>(dev[x], 4096);
        break;
      case 9:  // a kernel writes symbol[off] with y
        poke<<<1, 1>>>(off, y);
        break;
      case 10:  // two rows of n bytes: dev[x] + off (pitch hoff) <- host[y] (pitch 1024)
        if (first)
          cudaMemcpy2D(dev[x] + off, hoff, host[y], 1024, n, 2, cudaMemcpyHostToDevice);
        else
          cudaMemcpy2D(dev[x] + off, hoff, host[y], 1024, n, 2, cudaMemcpyHostToDevice);
        break;
      case 11:  // two rows of n bytes: host[y] (pitch 1024) <- dev[x] + off (pitch hoff)
        if (first)
          cudaMemcpy2D(host[y], 1024, dev[x] + off, hoff, n, 2, cudaMemcpyDeviceToHost);
        else
          cudaMemcpy2D(host[y], 1024, dev[x] + off, hoff, n, 2, cudaMemcpyDeviceToHost);
        break;
      case 12:  // as 0 and 1, the direction found from the pointers
        if (first)
          cudaMemcpy(dev[x] + off, host[y] + hoff, n, cudaMemcpyDefault);
        else
          cudaMemcpy(host[y] + hoff, dev[x] + off, n, cudaMemcpyDefault);
        break;
      case 13:  // as 7, through a pointer in a struct argument
        if (first)
          fill_through<<<1, 32>>>(Target{dev[x]}, off, off + n, y);
        else
          fill_through<<<1, 32>>>(Target{dev[x]}, off, off + n, y);
        break;
      default:
        std::fprintf(stderr, "unknown operation %d\n", op);
        return 2;
    }
  }
  std::fclose(script);
  cudaFree(a);
  cudaFree(b);
  cudaFree(managed);
  cudaFreeHost(pinned);
  return 0;
}
