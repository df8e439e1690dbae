// Calls the instrumenter routes through the runtime, shared by both race
// engines' runtime headers (hirace_runtime.cuh and the values engine's), which
// include it inside namespace hirace after their Thread and their
// count_unchecked_member(const Thread&).

// The base of the block's dynamic shared memory.
__device__ __forceinline__ const void* dynamic_shared_base() {
#ifdef HIRACE_CPU
  return ::hr::g_dyn_shared;
#else
  extern __shared__ unsigned char hirace_dynamic_shared[];
  return hirace_dynamic_shared;
#endif
}

// `f(args)` in a template where `f`'s type is a template parameter: the
// checked `f(t, args...)` where its class has a checked call operator (the
// int overload, preferred), else `f(args...)` as written. That is not
// counted: it is a lambda (whose body is checked where it is written, with
// the thread context it captures), a function pointer, or a system functor.
template <class F, class... A>
__device__ __forceinline__ auto call_operator(int, Thread& t, F&& f, A&&... a)
    -> decltype(static_cast<F&&>(f)(t, static_cast<A&&>(a)...)) {
  return static_cast<F&&>(f)(t, static_cast<A&&>(a)...);
}
template <class F, class... A>
__device__ __forceinline__ auto call_operator(long, Thread&, F&& f, A&&... a)
    -> decltype(static_cast<F&&>(f)(static_cast<A&&>(a)...)) {
  return static_cast<F&&>(f)(static_cast<A&&>(a)...);
}

// The caller of member `N` for calls through an object whose type is a
// template parameter (`o.N(args)` in a template; instrument/analyze.py
// `call_member`): `hirace_member_N::call(0, t, o, args...)` calls the checked
// overload `o.N(t, args...)` where the instantiation's class has one (the
// int overload, preferred), and otherwise `o.N(args...)`, counted: a class
// hirace did not instrument (system or other uninstrumented code) runs
// unchecked.
#define HIRACE_MEMBER_CALLER(N)                                                      \
  struct hirace_member_##N {                                                         \
    template <class O, class... A>                                                   \
    static __device__ __forceinline__ auto call(int, hirace::Thread& t, O&& o,      \
                                                A&&... a)                            \
        -> decltype(static_cast<O&&>(o).N(t, static_cast<A&&>(a)...)) {              \
      return static_cast<O&&>(o).N(t, static_cast<A&&>(a)...);                       \
    }                                                                                \
    template <class O, class... A>                                                   \
    static __device__ __forceinline__ auto call(long, hirace::Thread& t, O&& o,     \
                                                A&&... a)                            \
        -> decltype(static_cast<O&&>(o).N(static_cast<A&&>(a)...)) {                 \
      hirace::count_unchecked_member(t);                                             \
      return static_cast<O&&>(o).N(static_cast<A&&>(a)...);                          \
    }                                                                                \
  };
