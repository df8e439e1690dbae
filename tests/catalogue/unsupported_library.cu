// error: cuFFT (#include <cufft.h>)
#include <cuda_runtime.h>
#include <cufft.h>
int main() { return 0; }
