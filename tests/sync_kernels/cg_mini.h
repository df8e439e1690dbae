// A minimal stand-in for <cooperative_groups.h>: the groups and calls the
// tests use, written with the CUDA built-ins they stand for (1-D blocks).
// hirace recognises a group sync by the declaration it calls (`sync` in
// namespace cooperative_groups) and a grid group by its type's name, as in
// the toolkit's header; this one keeps the tests independent of the toolkit.
#pragma once

namespace cooperative_groups {

class thread_block {
  public:
    __device__ void sync() const { __syncthreads(); }
    __device__ unsigned num_threads() const { return blockDim.x * blockDim.y * blockDim.z; }
    __device__ unsigned size() const { return num_threads(); }
    __device__ unsigned thread_rank() const { return threadIdx.x; }
};

__device__ inline thread_block this_thread_block() { return thread_block(); }

template <unsigned N>
class thread_block_tile {
  public:
    __device__ unsigned mask() const {
        return N == 32 ? 0xffffffffu : ((1u << N) - 1) << ((threadIdx.x % 32) / N * N);
    }
    __device__ void sync() const { __syncwarp(mask()); }
    __device__ unsigned num_threads() const { return N; }
    __device__ unsigned size() const { return N; }
    __device__ unsigned thread_rank() const { return threadIdx.x % N; }
    __device__ unsigned meta_group_rank() const { return threadIdx.x / N; }
};

template <unsigned N>
__device__ thread_block_tile<N> tiled_partition(const thread_block &) {
    return thread_block_tile<N>();
}

class grid_group {
  public:
    __device__ void sync() const { __syncthreads(); }
    __device__ unsigned long long num_threads() const {
        return 1ull * gridDim.x * blockDim.x;
    }
    __device__ unsigned long long size() const { return num_threads(); }
};

__device__ inline grid_group this_grid() { return grid_group(); }

template <class Group>
__device__ void sync(const Group &g) { g.sync(); }

}  // namespace cooperative_groups
