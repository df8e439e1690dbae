// Parse prelude: declarations of CUDA's built-ins, so libclang can parse CUDA
// source in CUDA mode without any CUDA headers, GPU or toolkit. It is only
// ever parsed, never compiled: declarations need no definitions. The
// instrumenter force-includes it and stubs the usual CUDA headers with empty
// files, so `#include <cuda_runtime.h>` in user code resolves here.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDA_ARCH__ 800
#define CUDART_VERSION 12000

typedef __SIZE_TYPE__ size_t;

#define HIRACE_VEC(T, N)                                      \
  struct N##1 { T x; };                                       \
  struct __align__(2 * sizeof(T)) N##2 { T x, y; };           \
  struct N##3 { T x, y, z; };                                 \
  struct __align__(4 * sizeof(T)) N##4 { T x, y, z, w; };     \
  __host__ __device__ N##1 make_##N##1(T);                    \
  __host__ __device__ N##2 make_##N##2(T, T);                 \
  __host__ __device__ N##3 make_##N##3(T, T, T);              \
  __host__ __device__ N##4 make_##N##4(T, T, T, T);
HIRACE_VEC(signed char, char)
HIRACE_VEC(unsigned char, uchar)
HIRACE_VEC(short, short)
HIRACE_VEC(unsigned short, ushort)
HIRACE_VEC(int, int)
HIRACE_VEC(unsigned int, uint)
HIRACE_VEC(long, long)
HIRACE_VEC(unsigned long, ulong)
HIRACE_VEC(long long, longlong)
HIRACE_VEC(unsigned long long, ulonglong)
HIRACE_VEC(float, float)
HIRACE_VEC(double, double)
#undef HIRACE_VEC

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1);
  __host__ __device__ dim3(uint3 v);
  __host__ __device__ operator uint3() const;
};

extern __device__ const uint3 threadIdx;
extern __device__ const uint3 blockIdx;
extern __device__ const dim3 blockDim;
extern __device__ const dim3 gridDim;
extern __device__ const int warpSize;

// Barriers and warp operations.
__device__ void __syncthreads();
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence();
__device__ void __threadfence_block();
__device__ void __threadfence_system();
__device__ unsigned int __activemask();
__device__ unsigned int __ballot_sync(unsigned int, int);
__device__ int __any_sync(unsigned int, int);
__device__ int __all_sync(unsigned int, int);
template <class T> __device__ T __shfl_sync(unsigned int, T, int, int = 32);
template <class T> __device__ T __shfl_up_sync(unsigned int, T, unsigned int, int = 32);
template <class T> __device__ T __shfl_down_sync(unsigned int, T, unsigned int, int = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned int, T, int, int = 32);
template <class T> __device__ unsigned int __match_any_sync(unsigned int, T);
template <class T> __device__ T __reduce_add_sync(unsigned int, T);

// Atomics: every CUDA atomic, with _block and _system scopes, for any type.
#define HIRACE_ATOMIC2(name)                                   \
  template <class T> __device__ T name(T*, T);                 \
  template <class T> __device__ T name##_block(T*, T);         \
  template <class T> __device__ T name##_system(T*, T);
HIRACE_ATOMIC2(atomicAdd)
HIRACE_ATOMIC2(atomicSub)
HIRACE_ATOMIC2(atomicExch)
HIRACE_ATOMIC2(atomicMin)
HIRACE_ATOMIC2(atomicMax)
HIRACE_ATOMIC2(atomicInc)
HIRACE_ATOMIC2(atomicDec)
HIRACE_ATOMIC2(atomicAnd)
HIRACE_ATOMIC2(atomicOr)
HIRACE_ATOMIC2(atomicXor)
#undef HIRACE_ATOMIC2
template <class T> __device__ T atomicCAS(T*, T, T);
template <class T> __device__ T atomicCAS_block(T*, T, T);
template <class T> __device__ T atomicCAS_system(T*, T, T);

// Loads through the read-only / cache-hinted paths, and stores.
template <class T> __device__ T __ldg(const T*);
template <class T> __device__ T __ldcg(const T*);
template <class T> __device__ T __ldca(const T*);
template <class T> __device__ T __ldcs(const T*);
template <class T> __device__ T __ldlu(const T*);
template <class T> __device__ T __ldcv(const T*);
template <class T> __device__ void __stwb(T*, T);
template <class T> __device__ void __stcg(T*, T);
template <class T> __device__ void __stcs(T*, T);
template <class T> __device__ void __stwt(T*, T);

// Integer intrinsics.
__device__ int __popc(unsigned int);
__device__ int __popcll(unsigned long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ unsigned int __brev(unsigned int);
__device__ unsigned long long __brevll(unsigned long long);
__device__ int __mul24(int, int);
__device__ unsigned int __umul24(unsigned int, unsigned int);
__device__ int __mulhi(int, int);
__device__ unsigned int __umulhi(unsigned int, unsigned int);
__device__ long long __mul64hi(long long, long long);
__device__ unsigned long long __umul64hi(unsigned long long, unsigned long long);
__device__ unsigned int __byte_perm(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __funnelshift_l(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __funnelshift_r(unsigned int, unsigned int, unsigned int);
__device__ int __sad(int, int, unsigned int);
__device__ unsigned int __usad(unsigned int, unsigned int, unsigned int);
__device__ long long clock64();
__device__ long clock();
__device__ unsigned int __smid();
__device__ bool __isShared(const void*);
__device__ bool __isGlobal(const void*);
__device__ bool __isLocal(const void*);
__device__ unsigned long long __cvta_generic_to_shared(const void*);
__device__ void __nanosleep(unsigned int);
__device__ void __trap();
__device__ void __brkpt();

// Conversions and fast math.
#define HIRACE_CVT(to, from, name) __device__ to name(from);
#define HIRACE_CVT_ROUND(to, from, base) \
  HIRACE_CVT(to, from, base##_rn) HIRACE_CVT(to, from, base##_rz) \
  HIRACE_CVT(to, from, base##_ru) HIRACE_CVT(to, from, base##_rd)
HIRACE_CVT_ROUND(int, float, __float2int)
HIRACE_CVT_ROUND(unsigned int, float, __float2uint)
HIRACE_CVT_ROUND(long long, float, __float2ll)
HIRACE_CVT_ROUND(int, double, __double2int)
HIRACE_CVT_ROUND(float, double, __double2float)
HIRACE_CVT_ROUND(float, int, __int2float)
HIRACE_CVT_ROUND(float, unsigned int, __uint2float)
HIRACE_CVT_ROUND(double, long long, __ll2double)
HIRACE_CVT(int, float, __float_as_int)
HIRACE_CVT(unsigned int, float, __float_as_uint)
HIRACE_CVT(float, int, __int_as_float)
HIRACE_CVT(float, unsigned int, __uint_as_float)
HIRACE_CVT(long long, double, __double_as_longlong)
HIRACE_CVT(double, long long, __longlong_as_double)
HIRACE_CVT(double, int, __int2double_rn)
#undef HIRACE_CVT_ROUND
#undef HIRACE_CVT
__device__ float __fdividef(float, float);
__device__ float __saturatef(float);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __powf(float, float);
__device__ float __fmaf_rn(float, float, float);
__device__ float __fadd_rn(float, float);
__device__ float __fmul_rn(float, float);
__device__ double __fma_rn(double, double, double);
__device__ double __dadd_rn(double, double);

// Math library (float and double forms) and the integer helpers. Device-only
// declarations: clang lets them overload the host ones of the system headers.
#define HIRACE_MATH1(fn) __device__ float fn##f(float); __device__ double fn(double);
#define HIRACE_MATH2(fn) \
  __device__ float fn##f(float, float); __device__ double fn(double, double);
HIRACE_MATH1(sqrt) HIRACE_MATH1(rsqrt) HIRACE_MATH1(cbrt) HIRACE_MATH1(exp) HIRACE_MATH1(exp2)
HIRACE_MATH1(expm1) HIRACE_MATH1(log) HIRACE_MATH1(log2) HIRACE_MATH1(log10) HIRACE_MATH1(log1p)
HIRACE_MATH1(sin) HIRACE_MATH1(cos) HIRACE_MATH1(tan) HIRACE_MATH1(asin) HIRACE_MATH1(acos)
HIRACE_MATH1(atan) HIRACE_MATH1(sinh) HIRACE_MATH1(cosh) HIRACE_MATH1(tanh) HIRACE_MATH1(fabs)
HIRACE_MATH1(floor) HIRACE_MATH1(ceil) HIRACE_MATH1(round) HIRACE_MATH1(trunc) HIRACE_MATH1(rint)
HIRACE_MATH1(erf) HIRACE_MATH1(erfc) HIRACE_MATH1(lgamma) HIRACE_MATH1(tgamma)
HIRACE_MATH1(sinpi) HIRACE_MATH1(cospi) HIRACE_MATH1(exp10) HIRACE_MATH1(nearbyint)
HIRACE_MATH2(pow) HIRACE_MATH2(atan2) HIRACE_MATH2(fmod) HIRACE_MATH2(fmin) HIRACE_MATH2(fmax)
HIRACE_MATH2(hypot) HIRACE_MATH2(copysign) HIRACE_MATH2(remainder) HIRACE_MATH2(fdim)
#undef HIRACE_MATH1
#undef HIRACE_MATH2
__device__ float fmaf(float, float, float);
__device__ double fma(double, double, double);
__device__ void sincosf(float, float*, float*);
__device__ void sincos(double, double*, double*);
__device__ int isnan(double);
__device__ int isinf(double);
__device__ int isfinite(double);
__device__ int signbit(double);
__device__ long lrintf(float);
__device__ long long llrintf(float);
__device__ int abs(int);
__device__ long labs(long);
__device__ long long llabs(long long);
__device__ float abs(float);
__device__ double abs(double);
#define HIRACE_MINMAX(T)                                     \
  __device__ T min(T, T);                           \
  __device__ T max(T, T);
HIRACE_MINMAX(int) HIRACE_MINMAX(unsigned int) HIRACE_MINMAX(long) HIRACE_MINMAX(unsigned long)
HIRACE_MINMAX(long long) HIRACE_MINMAX(unsigned long long) HIRACE_MINMAX(float) HIRACE_MINMAX(double)
#undef HIRACE_MINMAX
__device__ int umin(unsigned int, unsigned int);
__device__ int umax(unsigned int, unsigned int);

extern "C" __device__ int printf(const char*, ...);
extern "C" __device__ void* malloc(size_t);
extern "C" __device__ void free(void*);
extern "C" __device__ void* memcpy(void*, const void*, size_t);
extern "C" __device__ void* memset(void*, int, size_t);
extern "C" __device__ void __assert_fail(const char*, const char*, unsigned int,
                                                  const char*);

// The host runtime API that whole programs use (what the CPU backend's
// templates/cuda_cpu_program.h.j2 provides; a test keeps the two in step).
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorCudartUnloading = 4,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidHostPointer = 16,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorUnsupportedLimit = 215,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorAssert = 710,
  cudaErrorHardwareStackError = 714,
  cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotPermitted = 800,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3
};
enum cudaFuncCache {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3
};
enum cudaSharedMemConfig {
  cudaSharedMemBankSizeDefault = 0,
  cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2
};
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9
};
enum cudaLimit {
  cudaLimitStackSize = 0,
  cudaLimitPrintfFifoSize = 1,
  cudaLimitMallocHeapSize = 2,
  cudaLimitDevRuntimeSyncDepth = 3,
  cudaLimitDevRuntimePendingLaunchCount = 4,
  cudaLimitMaxL2FetchGranularity = 5,
  cudaLimitPersistingL2CacheSize = 6
};
enum cudaMemoryAdvise {
  cudaMemAdviseSetReadMostly = 1,
  cudaMemAdviseUnsetReadMostly = 2,
  cudaMemAdviseSetPreferredLocation = 3,
  cudaMemAdviseUnsetPreferredLocation = 4,
  cudaMemAdviseSetAccessedBy = 5,
  cudaMemAdviseUnsetAccessedBy = 6
};
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxPitch = 11,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrKernelExecTimeout = 17,
  cudaDevAttrIntegrated = 18,
  cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrComputeMode = 20,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrEccEnabled = 32,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106
};
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef void (*cudaStreamCallback_t)(cudaStream_t, cudaError_t, void*);
typedef void (*cudaHostFn_t)(void*);
struct cudaUUID_t { char bytes[16]; };
struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
  size_t totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize;
  size_t memPitch;
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
  size_t totalConstMem;
  int major, minor;
  size_t textureAlignment, texturePitchAlignment;
  int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated;
  int canMapHostMemory, computeMode, concurrentKernels, ECCEnabled, pciBusID, pciDeviceID;
  int pciDomainID, tccDriver, asyncEngineCount, unifiedAddressing, memoryClockRate;
  int memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize, maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported, globalL1CacheSupported, localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID;
  int singleToDoublePrecisionPerfRatio, pageableMemoryAccess, concurrentManagedAccess;
  int computePreemptionSupported, canUseHostPointerForRegisteredMem, cooperativeLaunch;
  int cooperativeMultiDeviceLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor, accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
};
struct cudaFuncAttributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA;
  int maxDynamicSharedSizeBytes, preferredShmemCarveout;
};
struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
};
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04
#define cudaEventRecordDefault 0x00
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaCpuDeviceId (-1)
#define cudaInvalidDeviceId (-2)
extern "C" {
cudaError_t cudaMalloc(void**, size_t);
cudaError_t cudaMallocManaged(void**, size_t, unsigned int = cudaMemAttachGlobal);
cudaError_t cudaMallocAsync(void**, size_t, cudaStream_t);
cudaError_t cudaMallocHost(void**, size_t);
cudaError_t cudaHostAlloc(void**, size_t, unsigned int);
cudaError_t cudaMallocPitch(void**, size_t*, size_t, size_t);
cudaError_t cudaFree(void*);
cudaError_t cudaFreeAsync(void*, cudaStream_t);
cudaError_t cudaFreeHost(void*);
cudaError_t cudaHostRegister(void*, size_t, unsigned int);
cudaError_t cudaHostUnregister(void*);
cudaError_t cudaHostGetDevicePointer(void**, void*, unsigned int);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes*, const void*);
cudaError_t cudaMemcpy(void*, const void*, size_t, cudaMemcpyKind);
cudaError_t cudaMemcpyAsync(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t = 0);
cudaError_t cudaMemcpy2D(void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind);
cudaError_t cudaMemcpy2DAsync(void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind,
                              cudaStream_t = 0);
cudaError_t cudaMemset(void*, int, size_t);
cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t = 0);
cudaError_t cudaMemset2D(void*, size_t, int, size_t, size_t);
cudaError_t cudaMemPrefetchAsync(const void*, size_t, int, cudaStream_t = 0);
cudaError_t cudaMemAdvise(const void*, size_t, cudaMemoryAdvise, int);
cudaError_t cudaMemGetInfo(size_t*, size_t*);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaThreadSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaThreadExit();
cudaError_t cudaSetDevice(int);
cudaError_t cudaGetDevice(int*);
cudaError_t cudaGetDeviceCount(int*);
cudaError_t cudaChooseDevice(int*, const cudaDeviceProp*);
cudaError_t cudaSetDeviceFlags(unsigned int);
cudaError_t cudaGetDeviceFlags(unsigned int*);
cudaError_t cudaDriverGetVersion(int*);
cudaError_t cudaRuntimeGetVersion(int*);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp*, int);
cudaError_t cudaDeviceGetAttribute(int*, cudaDeviceAttr, int);
cudaError_t cudaDeviceSetLimit(cudaLimit, size_t);
cudaError_t cudaDeviceGetLimit(size_t*, cudaLimit);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache);
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache*);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig);
cudaError_t cudaDeviceGetStreamPriorityRange(int*, int*);
cudaError_t cudaDeviceCanAccessPeer(int*, int, int);
cudaError_t cudaProfilerStart();
cudaError_t cudaProfilerStop();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t);
const char* cudaGetErrorName(cudaError_t);
cudaError_t cudaStreamCreate(cudaStream_t*);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t*, unsigned int);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t*, unsigned int, int);
cudaError_t cudaStreamDestroy(cudaStream_t);
cudaError_t cudaStreamSynchronize(cudaStream_t);
cudaError_t cudaStreamQuery(cudaStream_t);
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int = 0);
cudaError_t cudaStreamAddCallback(cudaStream_t, cudaStreamCallback_t, void*, unsigned int);
cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t, void*);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t*, unsigned int);
cudaError_t cudaEventDestroy(cudaEvent_t);
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = 0);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t, cudaStream_t = 0, unsigned int = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t);
cudaError_t cudaEventQuery(cudaEvent_t);
cudaError_t cudaEventElapsedTime(float*, cudaEvent_t, cudaEvent_t);
int cudaConfigureCall(dim3, dim3, size_t = 0, cudaStream_t = 0);
}
cudaError_t cudaEventCreate(cudaEvent_t*);
cudaError_t cudaEventCreate(cudaEvent_t*, unsigned int);
cudaError_t cudaLaunchKernel(const void*, dim3, dim3, void**, size_t = 0, cudaStream_t = 0);
template <class... P>
cudaError_t cudaLaunchKernel(void (*)(P...), dim3, dim3, void**, size_t = 0, cudaStream_t = 0);
template <class T>
cudaError_t cudaMemcpyToSymbol(const T&, const void*, size_t, size_t = 0,
                               cudaMemcpyKind = cudaMemcpyHostToDevice);
template <class T>
cudaError_t cudaMemcpyFromSymbol(void*, const T&, size_t, size_t = 0,
                                 cudaMemcpyKind = cudaMemcpyDeviceToHost);
template <class T>
cudaError_t cudaMemcpyToSymbolAsync(const T&, const void*, size_t, size_t = 0,
                                    cudaMemcpyKind = cudaMemcpyHostToDevice, cudaStream_t = 0);
template <class T>
cudaError_t cudaMemcpyFromSymbolAsync(void*, const T&, size_t, size_t = 0,
                                      cudaMemcpyKind = cudaMemcpyDeviceToHost, cudaStream_t = 0);
template <class T> cudaError_t cudaGetSymbolAddress(void**, const T&);
template <class T> cudaError_t cudaGetSymbolSize(size_t*, const T&);
template <class T> cudaError_t cudaMalloc(T**, size_t);
template <class T> cudaError_t cudaMallocManaged(T**, size_t, unsigned int = cudaMemAttachGlobal);
template <class T> cudaError_t cudaMallocAsync(T**, size_t, cudaStream_t);
template <class T> cudaError_t cudaMallocHost(T**, size_t);
template <class T> cudaError_t cudaHostAlloc(T**, size_t, unsigned int);
template <class T> cudaError_t cudaMallocPitch(T**, size_t*, size_t, size_t);
template <class T> cudaError_t cudaHostGetDevicePointer(T**, void*, unsigned int);
template <class T> cudaError_t cudaFuncSetAttribute(T*, cudaFuncAttribute, int);
template <class T> cudaError_t cudaFuncSetCacheConfig(T*, cudaFuncCache);
template <class T> cudaError_t cudaFuncSetSharedMemConfig(T*, cudaSharedMemConfig);
template <class T> cudaError_t cudaFuncGetAttributes(cudaFuncAttributes*, T*);
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int*, T*, int, size_t);
template <class T>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int*, int*, T, size_t = 0, int = 0);
