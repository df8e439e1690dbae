// error: cuFFT (#include <cufft.h>)
// use: cufft
#include <cuda_runtime.h>
#include <cufft.h>
int main() { return 0; }
