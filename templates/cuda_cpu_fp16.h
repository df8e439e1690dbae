// hirace CPU backend: the half-precision and bfloat16 functions that CUDA's
// cuda_fp16.h and cuda_bf16.h declare for the device only.
//
// The CPU backend compiles the toolkit's own cuda_fp16.h and cuda_bf16.h: a
// host compiler gets their types, conversions, arithmetic and comparisons
// (the "host side"). This header adds, after them, what they leave to the
// device: math functions, fused multiply-adds, integer conversions with a
// rounding mode, cache-hinted loads and stores, atomics and shuffles (the
// shuffles are cuda_cpu.h's macros, which exchange any value of up to 8
// bytes). The stand-ins <cuda_fp16.h> and <cuda_bf16.h> include both toolkit
// headers, then this one (hirace_py.backends.cpu_runtime.cpu_headers);
// tests/test_cuda_fp16.py checks that every overload the toolkit declares for
// the device only can be called here with the same types and result type.
//
// Values: math functions compute in float and round once to the type (the
// device's approximations, such as htanh_approx, may differ in the last
// place); fused multiply-adds compute in double, whose 53 bits hold the exact
// product, and round once more to the type; integer conversions are exact,
// saturate as the device does and give 0 for NaN. Atomics are plain
// read-modify-writes: the CPU backend runs one thread at a time, and the
// instrumenter records the access before the call (hirace::atom).
#pragma once

#include <cmath>
#include <limits>

namespace hr {
namespace fp16 {

// Each 16-bit type with its 2-vector, its float conversions and how to build
// and take apart the vector.
template <class T> struct Num;
template <> struct Num<__half> {
    using Pair = __half2;
    static float to_float(__half a) { return __half2float(a); }
    static __half from_float(float f) { return __float2half_rn(f); }
    static __half from_double(double d) { return __double2half(d); }
    static unsigned short bits(__half a) { return __half_as_ushort(a); }
    static __half from_bits(unsigned short u) { return __ushort_as_half(u); }
};
template <> struct Num<__nv_bfloat16> {
    using Pair = __nv_bfloat162;
    static float to_float(__nv_bfloat16 a) { return __bfloat162float(a); }
    static __nv_bfloat16 from_float(float f) { return __float2bfloat16_rn(f); }
    static __nv_bfloat16 from_double(double d) { return __double2bfloat16(d); }
    static unsigned short bits(__nv_bfloat16 a) { return __bfloat16_as_ushort(a); }
    static __nv_bfloat16 from_bits(unsigned short u) { return __ushort_as_bfloat16(u); }
};
inline __half low(__half2 a) { return __low2half(a); }
inline __half high(__half2 a) { return __high2half(a); }
inline __half2 pair(__half lo, __half hi) { return __halves2half2(lo, hi); }
inline __nv_bfloat16 low(__nv_bfloat162 a) { return __low2bfloat16(a); }
inline __nv_bfloat16 high(__nv_bfloat162 a) { return __high2bfloat16(a); }
inline __nv_bfloat162 pair(__nv_bfloat16 lo, __nv_bfloat16 hi) {
    return __halves2bfloat162(lo, hi);
}

template <class T, class F> inline T unary(T a, F f) {
    return Num<T>::from_float(f(Num<T>::to_float(a)));
}
template <class P, class F> inline P unary2(P a, F f) {
    return pair(unary(low(a), f), unary(high(a), f));
}

// The device's canonical NaN of each type (what relu and sat give for NaN).
template <class T> inline T nan_of() { return Num<T>::from_bits(0x7fff); }
enum class Clamp { kNone, kRelu, kSat };
template <class T> inline T fma(T a, T b, T c, Clamp clamp) {
    double r = double(Num<T>::to_float(a)) * double(Num<T>::to_float(b)) +
               double(Num<T>::to_float(c));
    if (clamp != Clamp::kNone && std::isnan(r)) return clamp == Clamp::kRelu ? nan_of<T>()
                                                                          : Num<T>::from_float(0.0f);
    if (clamp != Clamp::kNone && r < 0.0) r = 0.0;
    if (clamp == Clamp::kSat && r > 1.0) r = 1.0;
    return Num<T>::from_double(r);
}
template <class P> inline P fma2(P a, P b, P c, Clamp clamp) {
    return pair(fma(low(a), low(b), low(c), clamp), fma(high(a), high(b), high(c), clamp));
}
// Complex multiply-add: (a.x + i a.y)(b.x + i b.y) + (c.x + i c.y), each part
// rounded once.
template <class P> inline P cmadd(P a, P b, P c) {
    using T = decltype(low(a));
    auto f = [](T v) { return double(Num<T>::to_float(v)); };
    double re = f(low(a)) * f(low(b)) - f(high(a)) * f(high(b)) + f(low(c));
    double im = f(low(a)) * f(high(b)) + f(high(a)) * f(low(b)) + f(high(c));
    return pair(Num<T>::from_double(re), Num<T>::from_double(im));
}

// A 16-bit value to an integer: rounded by `round` (floor, nearbyint or
// ceil), saturated to I's range, NaN to 0.
template <class I, class T> inline I to_int(T a, double (*round)(double)) {
    double d = double(Num<T>::to_float(a));
    if (std::isnan(d)) return 0;
    d = round(d);
    if (d <= double(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
    if (d >= double(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
    return I(d);
}

// An integer to bfloat16, rounded down (-1), up (+1) or toward zero (0):
// the nearest value, moved one step where it lies on the wrong side. long
// double holds every 64-bit integer and every bfloat16 exactly.
template <class I> inline __nv_bfloat16 to_bfloat16(I x, int direction) {
    long double exact = (long double)x;
    __nv_bfloat16 r = __float2bfloat16_rn(float(x));
    long double got = (long double)__bfloat162float(r);
    if (direction == 0) direction = exact < 0 ? 1 : -1;
    if ((direction < 0 && got > exact) || (direction > 0 && got < exact)) {
        // One step toward `direction`: the magnitude grows when the value's
        // sign and the direction agree (r is never 0 here, nor infinite).
        unsigned short u = __bfloat16_as_ushort(r);
        bool negative = (u & 0x8000) != 0;
        u = (negative == (direction < 0)) ? u + 1 : u - 1;
        r = __ushort_as_bfloat16(u);
    }
    return r;
}

inline __half add(__half a, __half b) { return __hadd(a, b); }
inline __half2 add(__half2 a, __half2 b) { return __hadd2(a, b); }
inline __nv_bfloat16 add(__nv_bfloat16 a, __nv_bfloat16 b) { return __hadd(a, b); }
inline __nv_bfloat162 add(__nv_bfloat162 a, __nv_bfloat162 b) { return __hadd2(a, b); }

}  // namespace fp16
}  // namespace hr

// Math functions of each type and its 2-vector.
#define HIRACE_FP16_MATH(name, name2, expr)                                                    \
    inline __half name(__half a) { return ::hr::fp16::unary(a, [](float x) { return expr; }); } \
    inline __nv_bfloat16 name(__nv_bfloat16 a) {                                               \
        return ::hr::fp16::unary(a, [](float x) { return expr; });                             \
    }                                                                                          \
    inline __half2 name2(__half2 a) {                                                          \
        return ::hr::fp16::unary2(a, [](float x) { return expr; });                            \
    }                                                                                          \
    inline __nv_bfloat162 name2(__nv_bfloat162 a) {                                            \
        return ::hr::fp16::unary2(a, [](float x) { return expr; });                            \
    }
HIRACE_FP16_MATH(hceil, h2ceil, std::ceil(x))
HIRACE_FP16_MATH(hcos, h2cos, std::cos(x))
HIRACE_FP16_MATH(hexp, h2exp, std::exp(x))
HIRACE_FP16_MATH(hexp10, h2exp10, std::pow(10.0f, x))
HIRACE_FP16_MATH(hexp2, h2exp2, std::exp2(x))
HIRACE_FP16_MATH(hfloor, h2floor, std::floor(x))
HIRACE_FP16_MATH(hlog, h2log, std::log(x))
HIRACE_FP16_MATH(hlog10, h2log10, std::log10(x))
HIRACE_FP16_MATH(hlog2, h2log2, std::log2(x))
HIRACE_FP16_MATH(hrcp, h2rcp, 1.0f / x)
HIRACE_FP16_MATH(hrint, h2rint, std::nearbyint(x))
HIRACE_FP16_MATH(hrsqrt, h2rsqrt, 1.0f / std::sqrt(x))
HIRACE_FP16_MATH(hsin, h2sin, std::sin(x))
HIRACE_FP16_MATH(hsqrt, h2sqrt, std::sqrt(x))
HIRACE_FP16_MATH(htanh, h2tanh, std::tanh(x))
HIRACE_FP16_MATH(htanh_approx, h2tanh_approx, std::tanh(x))
HIRACE_FP16_MATH(htrunc, h2trunc, std::trunc(x))
#undef HIRACE_FP16_MATH

// Fused multiply-adds, plain, clamped at 0 (relu) and saturated to [0, 1].
#define HIRACE_FP16_FMA(T, P)                                                                  \
    inline T __hfma(T a, T b, T c) { return ::hr::fp16::fma(a, b, c, ::hr::fp16::Clamp::kNone); } \
    inline T __hfma_relu(T a, T b, T c) {                                                      \
        return ::hr::fp16::fma(a, b, c, ::hr::fp16::Clamp::kRelu);                             \
    }                                                                                          \
    inline T __hfma_sat(T a, T b, T c) {                                                       \
        return ::hr::fp16::fma(a, b, c, ::hr::fp16::Clamp::kSat);                              \
    }                                                                                          \
    inline P __hfma2(P a, P b, P c) { return ::hr::fp16::fma2(a, b, c, ::hr::fp16::Clamp::kNone); } \
    inline P __hfma2_relu(P a, P b, P c) {                                                     \
        return ::hr::fp16::fma2(a, b, c, ::hr::fp16::Clamp::kRelu);                            \
    }                                                                                          \
    inline P __hfma2_sat(P a, P b, P c) {                                                      \
        return ::hr::fp16::fma2(a, b, c, ::hr::fp16::Clamp::kSat);                             \
    }                                                                                          \
    inline P __hcmadd(P a, P b, P c) { return ::hr::fp16::cmadd(a, b, c); }
HIRACE_FP16_FMA(__half, __half2)
HIRACE_FP16_FMA(__nv_bfloat16, __nv_bfloat162)
#undef HIRACE_FP16_FMA

// Integer conversions rounded down, to nearest (even) and up.
#define HIRACE_FP16_TO_INT(prefix, T, I, name)                                                 \
    inline I prefix##2##name##_rd(T a) { return ::hr::fp16::to_int<I>(a, std::floor); }        \
    inline I prefix##2##name##_rn(T a) { return ::hr::fp16::to_int<I>(a, std::nearbyint); }    \
    inline I prefix##2##name##_ru(T a) { return ::hr::fp16::to_int<I>(a, std::ceil); }
#define HIRACE_FP16_TO_INTS(prefix, T)                                                         \
    HIRACE_FP16_TO_INT(prefix, T, int, int)                                                    \
    HIRACE_FP16_TO_INT(prefix, T, unsigned int, uint)                                          \
    HIRACE_FP16_TO_INT(prefix, T, short, short)                                                \
    HIRACE_FP16_TO_INT(prefix, T, unsigned short, ushort)                                      \
    HIRACE_FP16_TO_INT(prefix, T, long long, ll)                                               \
    HIRACE_FP16_TO_INT(prefix, T, unsigned long long, ull)
HIRACE_FP16_TO_INTS(__half, __half)
HIRACE_FP16_TO_INTS(__bfloat16, __nv_bfloat16)
#undef HIRACE_FP16_TO_INTS
#undef HIRACE_FP16_TO_INT

// Integers to bfloat16 rounded down, up and toward zero (cuda_fp16.h has the
// half-precision ones on the host too).
#define HIRACE_TO_BFLOAT16(I, name)                                                            \
    inline __nv_bfloat16 __##name##2bfloat16_rd(I x) { return ::hr::fp16::to_bfloat16(x, -1); } \
    inline __nv_bfloat16 __##name##2bfloat16_ru(I x) { return ::hr::fp16::to_bfloat16(x, 1); } \
    inline __nv_bfloat16 __##name##2bfloat16_rz(I x) { return ::hr::fp16::to_bfloat16(x, 0); }
HIRACE_TO_BFLOAT16(int, int)
HIRACE_TO_BFLOAT16(unsigned int, uint)
HIRACE_TO_BFLOAT16(short, short)
HIRACE_TO_BFLOAT16(unsigned short, ushort)
HIRACE_TO_BFLOAT16(long long, ll)
HIRACE_TO_BFLOAT16(unsigned long long, ull)
#undef HIRACE_TO_BFLOAT16

// Cache-hinted loads and stores (the hint means nothing here) and atomicAdd,
// for each type and its 2-vector.
#define HIRACE_FP16_MEMORY(T)                                                                  \
    inline T __ldg(const T* a) { return *a; }                                                  \
    inline T __ldca(const T* a) { return *a; }                                                 \
    inline T __ldcg(const T* a) { return *a; }                                                 \
    inline T __ldcs(const T* a) { return *a; }                                                 \
    inline T __ldcv(const T* a) { return *a; }                                                 \
    inline T __ldlu(const T* a) { return *a; }                                                 \
    inline void __stcg(T* a, T v) { *a = v; }                                                  \
    inline void __stcs(T* a, T v) { *a = v; }                                                  \
    inline void __stwb(T* a, T v) { *a = v; }                                                  \
    inline void __stwt(T* a, T v) { *a = v; }                                                  \
    inline T atomicAdd(T* a, T v) {                                                            \
        T old = *a;                                                                            \
        *a = ::hr::fp16::add(old, v);                                                          \
        ::hr::atomic_step();                                                                   \
        return old;                                                                            \
    }
HIRACE_FP16_MEMORY(__half)
HIRACE_FP16_MEMORY(__half2)
HIRACE_FP16_MEMORY(__nv_bfloat16)
HIRACE_FP16_MEMORY(__nv_bfloat162)
#undef HIRACE_FP16_MEMORY
