"""Instrumenting code that uses cooperative groups (parsed with the toolkit's
<cooperative_groups.h>): what is tracked, what is left alone, and launches by
call. Skipped without the toolkit's headers."""

from __future__ import annotations

import pytest

from hirace_py import cuda_api
from hirace_py.instrument import instrument

pytestmark = pytest.mark.skipif(cuda_api.toolkit_include() is None,
                                reason="needs the CUDA toolkit's headers")  # fmt: skip

SOURCE = """\
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
#define CHECK(call) (call)
__device__ void block_sum(double *s, const cg::thread_block &cta) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cta);
  s[cta.thread_rank()] = cg::reduce(tile, s[cta.thread_rank()], cg::plus<double>());
  cg::sync(cta);
}
__global__ void k(double *out) {
  extern __shared__ double s[];
  cg::thread_block cta = cg::this_thread_block();
  s[cta.thread_rank()] = 1;
  block_sum(s, cta);
  cg::this_grid().sync();
  out[blockIdx.x] = s[0];
}
int main() {
  double *d;
  cudaMalloc(&d, 64 * sizeof(double));
  void *args[] = {&d};
  CHECK(cudaLaunchCooperativeKernel((void *)k, 2, 32, args, 32 * sizeof(double)));
  cudaLaunchKernel((const void *)k, dim3(2), dim3(32), args, 256);
  return 0;
}
"""


@pytest.fixture(scope="module")
def result():  # type: ignore[no-untyped-def]
    return instrument(SOURCE, "m.cu", target="cpu")


def test_group_calls_are_not_system_code(result) -> None:  # type: ignore[no-untyped-def]
    """Ranks, partitions, reduce and syncs touch no user memory: no warning."""
    assert [w.code for w in result.tables.warnings] == []


def test_group_handles_are_not_memory_and_reduce_reads_its_argument(result) -> None:  # type: ignore[no-untyped-def]
    src = result.source
    assert "cg::tiled_partition<32>(cta)" in src
    assert "cg::reduce(tile, (*hirace::rd(" in src
    assert "(cg::sync(cta), __hr_t.group_barrier((cta).size()))" in src
    assert "(cg::this_grid().sync(), __hr_t.grid_barrier())" in src


def test_launch_calls_are_tracked_where_spelled(result) -> None:  # type: ignore[no-untyped-def]
    """Both calls name the kernel; the one in a macro's argument is rewritten there.
    Their kernel arguments (`void**`) are not seen: both launches are opaque."""
    src = result.source
    assert src.count('hirace_unit(), "k", hirace_g, hirace_b, hirace_s, hirace_st, true); ') == 2
    assert ("CHECK([&](dim3 hirace_g, dim3 hirace_b, size_t hirace_s, cudaStream_t hirace_st) "
            "-> cudaError_t { " in src)  # fmt: skip
    assert ("cudaLaunchCooperativeKernel((void *)k, hirace_g, hirace_b, args, hirace_s); "
            "hirace::host::after_launch(); return hirace_e; }(2, 32, 32 * sizeof(double), 0)"
            in src)  # fmt: skip
    assert "(dim3(2), dim3(32), 256, 0)" in src
