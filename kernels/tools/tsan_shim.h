// CUDA-on-pthreads shim used by tsan_xcheck.py to cross-check the litmus verdicts
// with ThreadSanitizer (g++ -fsanitize=thread).  Not part of hirace.
//
// Each CUDA thread is an OS thread and all blocks run concurrently, so nothing
// orders blocks.  A barrier (__syncthreads*, __syncwarp) creates exactly the
// happens-before edges of docs/semantics.md section 1: every participant releases into a slot of
// the barrier's current generation before waiting and acquires it after, while
// the barrier's own bookkeeping uses relaxed atomics and raw futexes, which TSan
// treats as no synchronisation.  CUDA atomics are relaxed atomics (no
// happens-before); they are also logged with their scope, block and line so the
// driver can find atomic-atomic conflicts between scopes, which TSan cannot see.
// __shared__ declarations are rewritten by the driver into per-block arenas.
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>
#include <pthread.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef USE_TSAN
#include <sanitizer/tsan_interface.h>
#else
static inline void __tsan_acquire(void *) {}
static inline void __tsan_release(void *) {}
#endif

struct uint3 { unsigned x, y, z; };
struct dim3 { unsigned x = 1, y = 1, z = 1; };
thread_local uint3 threadIdx, blockIdx;
dim3 blockDim, gridDim;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict

#define CF std::atomic_signal_fence(std::memory_order_seq_cst)
#define RX std::memory_order_relaxed

struct Bar {
    std::atomic<int> count{0};
    std::atomic<int> gen{0};
    std::atomic<int> acc[2];
    int n = 0;
    char slots[2][64];
    Bar() { acc[0] = 0; acc[1] = 0; }
    int wait(int pred) {
        int g = gen.load(RX);
        CF;
        __tsan_release(&slots[g & 1]);
        acc[g & 1].fetch_add(pred ? 1 : 0, RX);
        CF;
        if (count.fetch_add(1, RX) + 1 == n) {
            count.store(0, RX);
            acc[(g + 1) & 1].store(0, RX);
            CF;
            gen.store(g + 1, RX);
            syscall(SYS_futex, reinterpret_cast<int *>(&gen), FUTEX_WAKE_PRIVATE, INT_MAX,
                    nullptr, nullptr, 0);
        } else {
            while (gen.load(RX) == g)
                syscall(SYS_futex, reinterpret_cast<int *>(&gen), FUTEX_WAIT_PRIVATE, g,
                        nullptr, nullptr, 0);
        }
        CF;
        int r = acc[g & 1].load(RX);
        __tsan_acquire(&slots[g & 1]);
        return r;
    }
};

struct AtomRec { uintptr_t addr; int scope; int line; unsigned block; };

struct BlockCtx {
    Bar bar;
    Bar *warps = nullptr;
    char *smem = nullptr;
};
thread_local BlockCtx *__blk;
thread_local std::vector<AtomRec> *__alog;
thread_local unsigned __lin;

static inline void __syncthreads() { __blk->bar.wait(0); }
static inline int __syncthreads_count(int p) { return __blk->bar.wait(p); }
static inline int __syncthreads_or(int p) { return __blk->bar.wait(p) > 0; }
static inline int __syncthreads_and(int p) { return __blk->bar.wait(p) == __blk->bar.n; }
static inline void __syncwarp(unsigned mask = 0xffffffffu) {
    (void)mask;
    __blk->warps[__lin / 32].wait(0);
}
static inline void __threadfence() { CF; }
static inline void __threadfence_block() { CF; }

static inline void __log(void *p, int scope, int line) {
    __alog->push_back({reinterpret_cast<uintptr_t>(p), scope, line,
                       blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)});
}
template <class T, class U> T __at_add(T *p, U v, int s, int l) { __log(p, s, l); return __atomic_fetch_add(p, (T)v, __ATOMIC_RELAXED); }
template <class T, class U> T __at_sub(T *p, U v, int s, int l) { __log(p, s, l); return __atomic_fetch_sub(p, (T)v, __ATOMIC_RELAXED); }
template <class T, class U> T __at_or(T *p, U v, int s, int l) { __log(p, s, l); return __atomic_fetch_or(p, (T)v, __ATOMIC_RELAXED); }
template <class T, class U> T __at_exch(T *p, U v, int s, int l) { __log(p, s, l); return __atomic_exchange_n(p, (T)v, __ATOMIC_RELAXED); }
template <class T, class U, class V> T __at_cas(T *p, U c, V v, int s, int l) {
    __log(p, s, l); T old = (T)c;
    __atomic_compare_exchange_n(p, &old, (T)v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return old;
}
template <class T, class U> T __at_max(T *p, U v, int s, int l) {
    __log(p, s, l); T old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (old < (T)v && !__atomic_compare_exchange_n(p, &old, (T)v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    return old;
}
template <class T, class U> T __at_min(T *p, U v, int s, int l) {
    __log(p, s, l); T old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (old > (T)v && !__atomic_compare_exchange_n(p, &old, (T)v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    return old;
}
// scope 1 = block, 2 = device or system
#define atomicAdd(p, v) __at_add(p, v, 2, __LINE__)
#define atomicAdd_block(p, v) __at_add(p, v, 1, __LINE__)
#define atomicAdd_system(p, v) __at_add(p, v, 2, __LINE__)
#define atomicSub(p, v) __at_sub(p, v, 2, __LINE__)
#define atomicSub_block(p, v) __at_sub(p, v, 1, __LINE__)
#define atomicOr_system(p, v) __at_or(p, v, 2, __LINE__)
#define atomicExch(p, v) __at_exch(p, v, 2, __LINE__)
#define atomicExch_block(p, v) __at_exch(p, v, 1, __LINE__)
#define atomicCAS(p, c, v) __at_cas(p, c, v, 2, __LINE__)
#define atomicCAS_block(p, c, v) __at_cas(p, c, v, 1, __LINE__)
#define atomicMax(p, v) __at_max(p, v, 2, __LINE__)
#define atomicMax_block(p, v) __at_max(p, v, 1, __LINE__)
#define atomicMin(p, v) __at_min(p, v, 2, __LINE__)

struct __TArg { BlockCtx *blk; unsigned lin; uint3 bidx; std::vector<AtomRec> *log; std::function<void()> *body; };

static void *__thread_main(void *vp) {
    __TArg *a = static_cast<__TArg *>(vp);
    __blk = a->blk;
    __lin = a->lin;
    __alog = a->log;
    blockIdx = a->bidx;
    threadIdx.x = a->lin % blockDim.x;
    threadIdx.y = (a->lin / blockDim.x) % blockDim.y;
    threadIdx.z = a->lin / (blockDim.x * blockDim.y);
    (*a->body)();
    return nullptr;
}

static void __launch(dim3 g, dim3 b, size_t dyn, int ndecl, std::function<void()> body) {
    gridDim = g;
    blockDim = b;
    unsigned nt = b.x * b.y * b.z, nb = g.x * g.y * g.z, nw = (nt + 31) / 32;
    size_t arena = (size_t)ndecl * 16384 + dyn + 64;
    char *smem_all = static_cast<char *>(calloc(nb, arena));
    fprintf(stderr, "SMEM %p %p\n", (void *)smem_all, (void *)(smem_all + nb * arena));
    std::vector<BlockCtx> blks(nb);
    std::vector<std::vector<AtomRec>> logs((size_t)nb * nt);
    std::vector<__TArg> targs((size_t)nb * nt);
    for (unsigned k = 0; k < nb; ++k) {
        blks[k].bar.n = nt;
        blks[k].warps = new Bar[nw];
        for (unsigned w = 0; w < nw; ++w) blks[k].warps[w].n = (nt - 32 * w < 32) ? nt - 32 * w : 32;
        blks[k].smem = smem_all + k * arena;
    }
    std::vector<pthread_t> th((size_t)nb * nt);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1 << 18);
    for (unsigned k = 0; k < nb; ++k)
        for (unsigned t = 0; t < nt; ++t) {
            size_t j = (size_t)k * nt + t;
            uint3 bi{k % g.x, (k / g.x) % g.y, k / (g.x * g.y)};
            targs[j] = {&blks[k], t, bi, &logs[j], &body};
            if (pthread_create(&th[j], &attr, __thread_main, &targs[j]) != 0) { perror("pthread_create"); exit(3); }
        }
    for (auto &t : th) pthread_join(t, nullptr);
    for (auto &l : logs)
        for (auto &r : l) fprintf(stderr, "ATOM %lx %d %d %u\n", (unsigned long)r.addr, r.scope, r.line, r.block);
}
