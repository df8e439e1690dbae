// Coalesced groups: warp-aggregated atomics after divergence (only the odd
// threads take part), then per-label maxima with labeled_partition and
// per-parity sums with binary_partition.
// Argument "plain": the group's leader bumps the counter with a plain
// read-modify-write instead of atomicAdd (a race between warps' leaders).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cstring>

namespace cg = cooperative_groups;

__device__ int aggregated_increment(int *counter, int plain)
{
    cg::coalesced_group active = cg::coalesced_threads();
    int first = 0;
    if (active.thread_rank() == 0) {
        if (plain)
            first = *counter, *counter = first + active.size();
        else
            first = atomicAdd(counter, active.size());
    }
    return active.shfl(first, 0) + active.thread_rank();
}

__global__ void compact(const int *in, int *out, int *counter, int *label_max, int *parity,
                        int plain)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    if (v % 2 == 1)
        out[aggregated_increment(counter, plain)] = v;
    cg::coalesced_group all = cg::coalesced_threads();
    cg::coalesced_group same = cg::labeled_partition(all, v % 4);
    int m = cg::reduce(same, v, cg::greater<int>());
    if (same.thread_rank() == 0)
        atomicMax(&label_max[v % 4], m);
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    cg::coalesced_group half = cg::binary_partition(warp, v % 2 == 0);
    int s = cg::reduce(half, v, cg::plus<int>());
    if (half.thread_rank() == 0)
        atomicAdd(&parity[v % 2], s);
}

int main(int argc, char **argv)
{
    const int n = 256;
    int plain = argc > 1 && strcmp(argv[1], "plain") == 0;
    int h[n], *in, *out, *counter, *label_max, *parity;
    for (int i = 0; i < n; ++i) h[i] = (i * 37) % n;
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, sizeof h);
    cudaMalloc(&counter, sizeof(int));
    cudaMalloc(&label_max, 4 * sizeof(int));
    cudaMalloc(&parity, 2 * sizeof(int));
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(counter, 0, sizeof(int));
    cudaMemset(label_max, 0, 4 * sizeof(int));
    cudaMemset(parity, 0, 2 * sizeof(int));
    compact<<<2, 128>>>(in, out, counter, label_max, parity, plain);
    int count, o[n], m[4], p[2];
    cudaMemcpy(&count, counter, sizeof count, cudaMemcpyDeviceToHost);
    cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost);
    cudaMemcpy(m, label_max, sizeof m, cudaMemcpyDeviceToHost);
    cudaMemcpy(p, parity, sizeof p, cudaMemcpyDeviceToHost);
    long sum = 0;
    for (int k = 0; k < count; ++k) sum += o[k];
    printf("odd values: %d, their sum %ld\n", count, sum);
    printf("largest by v %% 4: %d %d %d %d\n", m[0], m[1], m[2], m[3]);
    printf("sums of even and odd values: %d %d\n", p[0], p[1]);
    return 0;
}
