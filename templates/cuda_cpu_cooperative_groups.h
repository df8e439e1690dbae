// hirace CPU backend: <cooperative_groups.h> (with <cooperative_groups/reduce.h>
// and <cooperative_groups/scan.h>), hirace's own, for sources compiled by g++.
//
// Groups are small values naming the calling thread's group: its lanes in the
// warp (tiles of at most 32 threads and coalesced groups never span warps), its
// size and the caller's rank. Tiles of 64 to 1024 threads (multi-warp tiles)
// span warps: their collectives meet at a barrier of the tile's threads only,
// kept per block and tile (details::TileBarrier). Every collective goes through the fiber engine (cuda_cpu.h):
// a block's sync is the block barrier, a tile's or coalesced group's sync a
// warp barrier over the group's lanes, shuffles and votes the engine's warp
// operations with the group's mask, and a grid's sync the engine's grid
// barrier (which needs a cooperative launch). So each one waits for, and is
// checked against, exactly the threads it names on a GPU; a divergent call is
// reported with the user's file and line (default arguments of
// __builtin_FILE/__builtin_LINE carry the call site).
//
// The instrumenter keeps a group's `sync()` call and adds the checker's clock
// update after it (hirace_py/instrument/groups.py), so nothing here touches
// the checker's state.
#ifndef HIRACE_CPU_COOPERATIVE_GROUPS_H
#define HIRACE_CPU_COOPERATIVE_GROUPS_H

#include <cstring>
#include <type_traits>
#include <vector>

namespace cooperative_groups {

namespace details {

constexpr unsigned kWarp = 32;

inline unsigned lane() { return ::hr::g_thread_linear % kWarp; }
inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }

// The lanes [base, base + n) of a warp as a mask (n <= 32).
inline unsigned lanes(unsigned base, unsigned n) {
    return n >= kWarp ? 0xffffffffu : ((1u << n) - 1) << base;
}

// The lane holding rank `rank` of a group whose lanes are `mask`.
inline unsigned lane_of_rank(unsigned mask, unsigned rank) {
    for (unsigned l = 0; l < kWarp; ++l)
        if ((mask >> l & 1) && rank-- == 0) return l;
    return __builtin_ctz(mask);
}

// The bits of `bits` at the lanes of `mask`, packed in rank order.
inline unsigned pack(unsigned bits, unsigned mask) {
    unsigned out = 0, k = 0;
    for (unsigned l = 0; l < kWarp; ++l)
        if (mask >> l & 1) out |= (bits >> l & 1u) << k++;
    return out;
}

// The rank-order bits of `packed` spread back to the lanes of `mask`.
inline unsigned unpack(unsigned packed, unsigned mask) {
    unsigned out = 0, k = 0;
    for (unsigned l = 0; l < kWarp; ++l)
        if (mask >> l & 1) out |= (packed >> k++ & 1u) << l;
    return out;
}

enum Kind : unsigned { kBlock, kTile, kCoalesced };

// The meeting point of a multi-warp tile's threads: a counting barrier
// (threads that arrive early yield to the block's others until the last one
// arrives) and the bytes its collectives exchange. One per tile of a block
// (at most 1024 / 64), per OS thread: only one block of a launch runs its
// threads at a time on one OS thread (cooperative launches switch blocks at
// grid barriers only), so the block that finds a tile's barrier idle takes it.
struct TileBarrier {
    unsigned long long block = ~0ull, generation = 0;
    unsigned arrived = 0;
    std::vector<unsigned char> bytes;
};

inline TileBarrier& tile_barrier(unsigned tile, const char* file, int line) {
    static thread_local TileBarrier barriers[1024 / 64];
    TileBarrier& b = barriers[tile % (1024 / 64)];
    if (b.block != ::hr::g_block_linear) {
        if (b.arrived != 0)
            ::hr::kernel_error("cooperative_groups: hirace's CPU backend cannot run two "
                               "blocks' multi-warp tile collectives at once", file, line);
        b.block = ::hr::g_block_linear;
    }
    return b;
}

// Waits until all `n` threads of tile `tile` of this block arrive.
inline void tile_sync(unsigned tile, unsigned n, const char* file, int line) {
    TileBarrier& b = tile_barrier(tile, file, line);
    unsigned long long generation = b.generation;
    if (++b.arrived == n) {
        b.arrived = 0;
        ++b.generation;
        return;
    }
    // Cooperative scheduling: the others run while this thread yields. A
    // thread of the tile that exited or waits elsewhere would leave it
    // waiting for ever: after this many turns it is a kernel error.
    for (unsigned long long turns = 0; b.generation == generation; ++turns) {
        if (turns > (1ull << 26))
            ::hr::kernel_error("cooperative_groups: a multi-warp tile's collective waits for "
                               "threads of the tile that never reach it", file, line);
        ::hr::yield_now();
    }
}

// A shuffle of a value of any trivially copyable type, as CUDA's group
// shuffles take one: the engine moves 8 bytes at a time, so a larger value
// moves in 8-byte pieces, every piece from the same source lane.
template <class T>
T shuffle(::hr::Op op, const char* file, int line, unsigned mask, T var, int arg, int width) {
    static_assert(std::is_trivially_copyable<T>::value,
                  "group shuffles exchange trivially copyable values");
    if constexpr (sizeof(T) <= 8) {
        return ::hr::shfl(op, file, line, mask, var, arg, width);
    } else {
        constexpr size_t pieces = (sizeof(T) + 7) / 8;
        unsigned long long in[pieces] = {}, out[pieces];
        memcpy(in, &var, sizeof(T));
        for (size_t k = 0; k < pieces; ++k)
            out[k] = ::hr::shfl(op, file, line, mask, in[k], arg, width);
        T result;
        memcpy(static_cast<void*>(&result), out, sizeof(T));
        return result;
    }
}

}  // namespace details

// A group of any kind, as CUDA's thread_group: what every group converts to.
class thread_group {
  public:
    void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        if (kind_ == details::kBlock)
            ::hr::syncthreads(::hr::Op::kSyncThreads, 1, file, line);
        else
            ::hr::warp(::hr::Op::kSyncWarp, mask_, 0, 0, details::kWarp, file, line);
    }
    unsigned long long size() const { return size_; }
    unsigned long long num_threads() const { return size_; }
    unsigned long long thread_rank() const { return rank_; }
    // The group's lanes in the caller's warp (0 for a block), for the
    // checker's clock update after a sync (HIRACE_GROUP_LANES in
    // hirace_runtime.cuh): CUDA's groups do not tell their lanes.
    unsigned hirace_lanes() const { return kind_ == details::kBlock ? 0u : mask_; }

  protected:
    thread_group(details::Kind kind, unsigned mask, unsigned size, unsigned rank)
        : kind_(kind), mask_(mask), size_(size), rank_(rank) {}

    details::Kind kind_;
    unsigned mask_;  // the group's lanes in the caller's warp (tiles, coalesced groups)
    unsigned size_;
    unsigned rank_;

    friend thread_group tiled_partition(const thread_group& parent, unsigned tile_size,
                                        const char* file, int line);
};

// Votes and matches over a group's lanes of one warp (tiles, coalesced groups).
class warp_group : public thread_group {
  public:
    int any(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return int(::hr::warp(::hr::Op::kAny, mask_, predicate != 0, 0, details::kWarp, file, line));
    }
    int all(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return int(::hr::warp(::hr::Op::kAll, mask_, predicate != 0, 0, details::kWarp, file, line));
    }
    // Bit k is rank k's predicate.
    unsigned ballot(int predicate, const char* file = __builtin_FILE(),
                    int line = __builtin_LINE()) const {
        unsigned bits = unsigned(
            ::hr::warp(::hr::Op::kBallot, mask_, predicate != 0, 0, details::kWarp, file, line));
        return details::pack(bits, mask_);
    }
    template <class T>
    unsigned match_any(T value, const char* file = __builtin_FILE(),
                       int line = __builtin_LINE()) const {
        return details::pack(::hr::match_any(file, line, mask_, value), mask_);
    }
    template <class T>
    unsigned match_all(T value, int& pred, const char* file = __builtin_FILE(),
                       int line = __builtin_LINE()) const {
        return details::pack(::hr::match_all(file, line, mask_, value, &pred), mask_);
    }

  protected:
    using thread_group::thread_group;
};

// The calling thread's block.
class thread_block : public thread_group {
  public:
    thread_block()
        : thread_group(details::kBlock, 0, details::block_threads(), ::hr::g_thread_linear) {}

    void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        ::hr::syncthreads(::hr::Op::kSyncThreads, 1, file, line);
    }
    unsigned size() const { return size_; }
    unsigned num_threads() const { return size_; }
    unsigned thread_rank() const { return rank_; }
    dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    dim3 group_dim() const { return blockDim; }
    dim3 dim_threads() const { return blockDim; }
};

// Scratch memory for multi-warp tiles on GPUs that need it; the CPU backend
// keeps its own, so it only reserves the name.
template <unsigned int MaxBlockSize = 1024>
struct block_tile_memory {
    unsigned char reserved[8];
};

inline thread_block this_thread_block() { return thread_block(); }
template <unsigned int MaxBlockSize>
thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) {
    return thread_block();
}

// A tile of N threads, a power of two. ParentT is only part of the type, as in
// CUDA; all tiles of one size convert to one another. MultiWarp (N > 32)
// chooses the implementation, as CUDA's own thread_block_tile does.
template <unsigned N, class ParentT = void, bool MultiWarp = (N > 32)>
class thread_block_tile;

// Tiles of at most 32 threads: lanes [k*N, (k+1)*N) of a warp.
template <unsigned N, class ParentT>
class thread_block_tile<N, ParentT, false> : public warp_group {
    static_assert(N >= 1 && (N & (N - 1)) == 0,
                  "thread_block_tile: the size must be a power of two");

  public:
    // The caller's tile of a parent group whose rank is `parent_rank` of `parent_size`.
    thread_block_tile(unsigned parent_rank, unsigned parent_size)
        : warp_group(details::kTile, details::lanes(details::lane() / N * N, N), N,
                     parent_rank % N),
          meta_rank_(parent_rank / N),
          meta_size_((parent_size + N - 1) / N) {}
    template <class OtherParent>
    thread_block_tile(const thread_block_tile<N, OtherParent>& other)
        : warp_group(other), meta_rank_(other.meta_group_rank()),
          meta_size_(other.meta_group_size()) {}

    void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        ::hr::warp(::hr::Op::kSyncWarp, mask_, 0, 0, details::kWarp, file, line);
    }
    static constexpr unsigned size() { return N; }
    static constexpr unsigned num_threads() { return N; }
    unsigned thread_rank() const { return rank_; }
    unsigned meta_group_rank() const { return meta_rank_; }
    unsigned meta_group_size() const { return meta_size_; }

    template <class T>
    T shfl(T var, int src, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return details::shuffle(::hr::Op::kShflIdx, file, line, mask_, var, src, int(N));
    }
    template <class T>
    T shfl_down(T var, unsigned delta, const char* file = __builtin_FILE(),
                int line = __builtin_LINE()) const {
        return details::shuffle(::hr::Op::kShflDown, file, line, mask_, var, int(delta), int(N));
    }
    template <class T>
    T shfl_up(T var, unsigned delta, const char* file = __builtin_FILE(),
              int line = __builtin_LINE()) const {
        return details::shuffle(::hr::Op::kShflUp, file, line, mask_, var, int(delta), int(N));
    }
    template <class T>
    T shfl_xor(T var, unsigned lane_mask, const char* file = __builtin_FILE(),
               int line = __builtin_LINE()) const {
        return details::shuffle(::hr::Op::kShflXor, file, line, mask_, var, int(lane_mask), int(N));
    }

  private:
    unsigned meta_rank_, meta_size_;
};

// Tiles of 64 to 1024 threads: ranks [k*N, (k+1)*N) of the parent, whole warps.
// Like CUDA's, they have sync, shfl, any and all (and cg::reduce and the
// scans), each a meeting of the tile's threads (details::tile_sync).
template <unsigned N, class ParentT>
class thread_block_tile<N, ParentT, true> : public thread_group {
    static_assert((N & (N - 1)) == 0 && N <= 1024,
                  "thread_block_tile: the size must be a power of two, at most 1024");

  public:
    thread_block_tile(unsigned parent_rank, unsigned parent_size)
        : thread_group(details::kTile, 0, N, parent_rank % N),
          meta_rank_(parent_rank / N),
          meta_size_((parent_size + N - 1) / N) {}
    template <class OtherParent>
    thread_block_tile(const thread_block_tile<N, OtherParent>& other)
        : thread_group(other), meta_rank_(other.meta_group_rank()),
          meta_size_(other.meta_group_size()) {}

    void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        details::tile_sync(meta_rank_, N, file, line);
    }
    static constexpr unsigned size() { return N; }
    static constexpr unsigned num_threads() { return N; }
    unsigned thread_rank() const { return rank_; }
    unsigned meta_group_rank() const { return meta_rank_; }
    unsigned meta_group_size() const { return meta_size_; }

    // Every rank's value, in rank order, to every rank.
    template <class T>
    void gather(const T& value, T* out, const char* file, int line) const {
        static_assert(std::is_trivially_copyable<T>::value,
                      "multi-warp tile collectives exchange trivially copyable values");
        details::TileBarrier& b = details::tile_barrier(meta_rank_, file, line);
        if (b.bytes.size() < N * sizeof(T)) {
            // Every rank grows it before any writes: the meeting orders them.
            details::tile_sync(meta_rank_, N, file, line);
            if (b.bytes.size() < N * sizeof(T)) b.bytes.resize(N * sizeof(T));
            details::tile_sync(meta_rank_, N, file, line);
        }
        memcpy(b.bytes.data() + rank_ * sizeof(T), &value, sizeof(T));
        details::tile_sync(meta_rank_, N, file, line);
        memcpy(static_cast<void*>(out), b.bytes.data(), N * sizeof(T));
        details::tile_sync(meta_rank_, N, file, line);
    }

    template <class T>
    T shfl(T var, unsigned src, const char* file = __builtin_FILE(),
           int line = __builtin_LINE()) const {
        T all[N];
        gather(var, all, file, line);
        return all[src % N];
    }
    int any(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        int all[N];
        gather(int(predicate != 0), all, file, line);
        for (unsigned r = 0; r < N; ++r)
            if (all[r]) return 1;
        return 0;
    }
    int all(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        int every[N];
        gather(int(predicate != 0), every, file, line);
        for (unsigned r = 0; r < N; ++r)
            if (!every[r]) return 0;
        return 1;
    }

  private:
    unsigned meta_rank_, meta_size_;
};

// The threads of a warp that are active together (or a subset of them, from
// labeled_partition or binary_partition): ranks follow lane order.
class coalesced_group : public warp_group {
  public:
    explicit coalesced_group(unsigned mask)
        : warp_group(details::kCoalesced, mask, unsigned(__builtin_popcount(mask)),
                     unsigned(__builtin_popcount(mask & ((1u << details::lane()) - 1)))) {}

    void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        ::hr::warp(::hr::Op::kSyncWarp, mask_, 0, 0, details::kWarp, file, line);
    }
    unsigned size() const { return size_; }
    unsigned num_threads() const { return size_; }
    unsigned thread_rank() const { return rank_; }
    unsigned meta_group_rank() const { return 0; }
    unsigned meta_group_size() const { return 1; }

    template <class T>
    T shfl(T var, unsigned src_rank, const char* file = __builtin_FILE(),
           int line = __builtin_LINE()) const {
        unsigned src = details::lane_of_rank(mask_, src_rank % size_);
        return details::shuffle(::hr::Op::kShflIdx, file, line, mask_, var, int(src), int(details::kWarp));
    }
    // Ranks past the group's end read their own value, as CUDA's shfl_down.
    template <class T>
    T shfl_down(T var, unsigned delta, const char* file = __builtin_FILE(),
                int line = __builtin_LINE()) const {
        unsigned to = rank_ + delta < size_ ? rank_ + delta : rank_;
        unsigned src = details::lane_of_rank(mask_, to);
        return details::shuffle(::hr::Op::kShflIdx, file, line, mask_, var, int(src), int(details::kWarp));
    }
    template <class T>
    T shfl_up(T var, unsigned delta, const char* file = __builtin_FILE(),
              int line = __builtin_LINE()) const {
        unsigned from = rank_ >= delta ? rank_ - delta : rank_;
        unsigned src = details::lane_of_rank(mask_, from);
        return details::shuffle(::hr::Op::kShflIdx, file, line, mask_, var, int(src), int(details::kWarp));
    }

    unsigned lanes() const { return mask_; }
};

// The threads of the caller's warp that reach this call together.
inline coalesced_group coalesced_threads(const char* file = __builtin_FILE(),
                                         int line = __builtin_LINE()) {
    return coalesced_group(::hr::active_mask(file, line));
}

// The whole grid. Its sync needs a cooperative launch (cudaLaunchCooperativeKernel).
class grid_group {
  public:
    bool is_valid() const { return ::hr::cooperative_launch(); }
    void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
        ::hr::grid_sync(file, line);
    }
    unsigned long long size() const { return num_blocks() * details::block_threads(); }
    unsigned long long num_threads() const { return size(); }
    unsigned long long thread_rank() const {
        return block_rank() * details::block_threads() + ::hr::g_thread_linear;
    }
    unsigned long long num_blocks() const {
        return 1ull * gridDim.x * gridDim.y * gridDim.z;
    }
    unsigned long long block_rank() const { return ::hr::g_block_linear; }
    dim3 group_dim() const { return gridDim; }
    dim3 dim_blocks() const { return gridDim; }
    dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
};

inline grid_group this_grid() { return grid_group(); }

// Partitions.

template <unsigned N, class ParentT>
thread_block_tile<N, ParentT> tiled_partition(const ParentT& parent) {
    return thread_block_tile<N, ParentT>(unsigned(parent.thread_rank()), unsigned(parent.size()));
}

// A tile of `tile_size` threads (a power of two, at most 32) as a thread_group.
inline thread_group tiled_partition(const thread_group& parent, unsigned tile_size,
                                    const char* file = __builtin_FILE(),
                                    int line = __builtin_LINE()) {
    if (tile_size == 0 || tile_size > details::kWarp || (tile_size & (tile_size - 1)) != 0)
        ::hr::kernel_error("cooperative_groups::tiled_partition: hirace's CPU backend "
                           "supports tile sizes of 1 to 32 threads, a power of two",
                           file, line);
    unsigned rank = unsigned(parent.thread_rank());
    if (parent.kind_ == details::kCoalesced) {
        // Tiles of a coalesced group are made of consecutive ranks.
        unsigned first = rank / tile_size * tile_size, mask = 0;
        for (unsigned r = first; r < first + tile_size && r < parent.size_; ++r)
            mask |= 1u << details::lane_of_rank(parent.mask_, r);
        return thread_group(details::kCoalesced, mask, unsigned(__builtin_popcount(mask)),
                            rank - first);
    }
    return thread_group(details::kTile,
                        details::lanes(details::lane() / tile_size * tile_size, tile_size),
                        tile_size, rank % tile_size);
}

// The threads of `parent` with the same `label`.
template <class Group, class Label>
coalesced_group labeled_partition(const Group& parent, Label label,
                                  const char* file = __builtin_FILE(),
                                  int line = __builtin_LINE()) {
    return coalesced_group(::hr::match_any(file, line, parent.lanes(), label));
}

// The threads of `parent` whose predicate agrees with the caller's.
template <class Group>
coalesced_group binary_partition(const Group& parent, bool predicate,
                                 const char* file = __builtin_FILE(),
                                 int line = __builtin_LINE()) {
    unsigned mask = parent.lanes();
    unsigned yes = unsigned(
        ::hr::warp(::hr::Op::kBallot, mask, predicate, 0, details::kWarp, file, line));
    return coalesced_group(predicate ? yes : mask & ~yes);
}

template <unsigned N, class P>
coalesced_group labeled_partition(const thread_block_tile<N, P>& parent, unsigned label,
                                  const char* file = __builtin_FILE(),
                                  int line = __builtin_LINE()) {
    unsigned mask = details::lanes(details::lane() / N * N, N);
    return coalesced_group(::hr::match_any(file, line, mask, label));
}

template <unsigned N, class P>
coalesced_group binary_partition(const thread_block_tile<N, P>& parent, bool predicate,
                                 const char* file = __builtin_FILE(),
                                 int line = __builtin_LINE()) {
    unsigned mask = details::lanes(details::lane() / N * N, N);
    unsigned yes = unsigned(
        ::hr::warp(::hr::Op::kBallot, mask, predicate, 0, details::kWarp, file, line));
    return coalesced_group(predicate ? yes : mask & ~yes);
}

// Free functions on any group.

template <class Group>
void sync(const Group& g, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    g.sync(file, line);
}
template <class Group>
auto thread_rank(const Group& g) -> decltype(g.thread_rank()) {
    return g.thread_rank();
}
template <class Group>
auto group_size(const Group& g) -> decltype(g.num_threads()) {
    return g.num_threads();
}

// <cooperative_groups/reduce.h>: the operators, reduce, and the scans.

template <class T = void>
struct plus {
    T operator()(const T& a, const T& b) const { return a + b; }
};
template <class T = void>
struct less {  // the smaller: a reduction with less<T> is the minimum
    T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <class T = void>
struct greater {  // the larger: a reduction with greater<T> is the maximum
    T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <class T = void>
struct bit_and {
    T operator()(const T& a, const T& b) const { return a & b; }
};
template <class T = void>
struct bit_or {
    T operator()(const T& a, const T& b) const { return a | b; }
};
template <class T = void>
struct bit_xor {
    T operator()(const T& a, const T& b) const { return a ^ b; }
};

namespace details {

// Every rank of `g` in rank order, combined by `op`: rank 0 folds in the others
// one by one (so the order is fixed), then shares the result.
template <class Group, class T, class Op>
T fold(const Group& g, T value, Op op, const char* file, int line) {
    unsigned n = unsigned(g.num_threads());
    T acc = value;
    for (unsigned r = 1; r < n; ++r) {
        T other = g.shfl(value, r, file, line);
        if (g.thread_rank() == 0) acc = op(acc, other);
    }
    return g.shfl(acc, 0, file, line);
}

template <class Group, class T, class Op>
T inclusive(const Group& g, T value, Op op, const char* file, int line) {
    unsigned n = unsigned(g.num_threads()), me = unsigned(g.thread_rank());
    T acc = value;
    for (unsigned r = 0; r < n; ++r) {
        T other = g.shfl(value, r, file, line);
        if (r == 0)
            acc = other;
        else if (r <= me)
            acc = op(acc, other);
    }
    return acc;
}

// A multi-warp tile's fold and scan: one exchange of every rank's value, then
// each rank combines them in rank order (the same result everywhere).
template <unsigned N, class P, class T, class Op>
T fold(const thread_block_tile<N, P, true>& g, T value, Op op, const char* file, int line) {
    T all[N];
    g.gather(value, all, file, line);
    T acc = all[0];
    for (unsigned r = 1; r < N; ++r) acc = op(acc, all[r]);
    return acc;
}

template <unsigned N, class P, class T, class Op>
T inclusive(const thread_block_tile<N, P, true>& g, T value, Op op, const char* file, int line) {
    T all[N];
    g.gather(value, all, file, line);
    T acc = all[0];
    for (unsigned r = 1; r <= g.thread_rank(); ++r) acc = op(acc, all[r]);
    return acc;
}

}  // namespace details

template <class Group, class T, class Op>
auto reduce(const Group& g, T&& value, Op&& op, const char* file = __builtin_FILE(),
            int line = __builtin_LINE()) -> typename std::decay<T>::type {
    return details::fold(g, typename std::decay<T>::type(value), op, file, line);
}

template <class Group, class T, class Op>
auto inclusive_scan(const Group& g, T&& value, Op&& op, const char* file = __builtin_FILE(),
                    int line = __builtin_LINE()) -> typename std::decay<T>::type {
    return details::inclusive(g, typename std::decay<T>::type(value), op, file, line);
}
template <class Group, class T>
auto inclusive_scan(const Group& g, T&& value, const char* file = __builtin_FILE(),
                    int line = __builtin_LINE()) -> typename std::decay<T>::type {
    using V = typename std::decay<T>::type;
    return details::inclusive(g, V(value), plus<V>(), file, line);
}

// Rank 0 gets T() (CUDA leaves it undefined for operators other than plus).
template <class Group, class T, class Op>
auto exclusive_scan(const Group& g, T&& value, Op&& op, const char* file = __builtin_FILE(),
                    int line = __builtin_LINE()) -> typename std::decay<T>::type {
    using V = typename std::decay<T>::type;
    V inc = details::inclusive(g, V(value), op, file, line);
    unsigned me = unsigned(g.thread_rank());
    V before = g.shfl(inc, me == 0 ? 0 : me - 1, file, line);
    return me == 0 ? V() : before;
}
template <class Group, class T>
auto exclusive_scan(const Group& g, T&& value, const char* file = __builtin_FILE(),
                    int line = __builtin_LINE()) -> typename std::decay<T>::type {
    using V = typename std::decay<T>::type;
    return exclusive_scan(g, V(value), plus<V>(), file, line);
}

}  // namespace cooperative_groups

#endif  // HIRACE_CPU_COOPERATIVE_GROUPS_H
