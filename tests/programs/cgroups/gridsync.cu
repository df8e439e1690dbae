// A cooperative launch: each block sums its part into partial[block], the
// grid syncs, then block 0 adds the partial sums; a second phase scales the
// input by the total, after another grid sync.
// Argument "nosync": the first grid sync is skipped (block 0 reads other
// blocks' partial sums unordered: a race); "plain": a plain launch, whose
// grid sync is an error.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstring>

namespace cg = cooperative_groups;

__global__ void two_phase(int *data, int *partial, int *total, int synced)
{
    extern __shared__ int part[];
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    part[block.thread_rank()] = data[grid.thread_rank()];
    block.sync();
    if (block.thread_rank() == 0) {
        int s = 0;
        for (unsigned k = 0; k < block.size(); ++k) s += part[k];
        partial[grid.block_rank()] = s;
    }
    if (synced)
        grid.sync();
    if (grid.thread_rank() == 0) {
        int s = 0;
        for (unsigned b = 0; b < grid.num_blocks(); ++b) s += partial[b];
        *total = s;
    }
    cg::sync(grid);
    data[grid.thread_rank()] *= *total;
}

int main(int argc, char **argv)
{
    int synced = !(argc > 1 && strcmp(argv[1], "nosync") == 0);
    int plain = argc > 1 && strcmp(argv[1], "plain") == 0;
    int threads = 64, per_sm = 0, supported = 0;
    cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, two_phase, threads,
                                                  threads * sizeof(int));
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    int blocks = 4 < per_sm * prop.multiProcessorCount ? 4 : per_sm * prop.multiProcessorCount;
    int n = blocks * threads, *data, *partial, *total;
    cudaMallocManaged(&data, n * sizeof(int));
    cudaMalloc(&partial, blocks * sizeof(int));
    cudaMalloc(&total, sizeof(int));
    for (int i = 0; i < n; ++i) data[i] = 1 + i % 3;
    void *args[] = {&data, &partial, &total, &synced};
    cudaError_t e;
    if (plain)
        e = cudaLaunchKernel((void *)two_phase, blocks, threads, args, threads * sizeof(int));
    else
        e = cudaLaunchCooperativeKernel((void *)two_phase, blocks, threads, args,
                                        threads * sizeof(int));
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    printf("cooperative launch supported: %d; %d blocks of %d\n", supported, blocks, threads);
    printf("launch: %s\n", cudaGetErrorString(e));
    if (e == cudaSuccess) printf("data[0] %d, data[%d] %d\n", data[0], n - 1, data[n - 1]);
    e = cudaLaunchCooperativeKernel((void *)two_phase, per_sm * prop.multiProcessorCount + 1,
                                    threads, args, threads * sizeof(int));
    printf("one block too many: %s\n", cudaGetErrorName(e));
    return 0;
}
