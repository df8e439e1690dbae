// A helper header that, like many, defines its helpers only when the CUDA
// headers it needs were included before it: it tests their include guards.
#pragma once
#include <cstdio>
#include <cstdlib>

#ifdef __DRIVER_TYPES_H__
inline const char* error_name(cudaError_t e) { return cudaGetErrorName(e); }
#endif

#ifdef __CUDA_RUNTIME_H__
template <class T> void check(T result, const char* what, int line) {
  if (result) {
    std::fprintf(stderr, "%s failed at line %d: %s\n", what, line, error_name(result));
    std::exit(1);
  }
}
#define CHECK(call) check((call), #call, __LINE__)
#endif
