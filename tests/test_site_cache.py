"""The CPU runtime's per-site cache of the shadow lookup gives the lookup's answers.

Each case is built so that an entry kept too long or applied too widely would
change the report: a site whose pointer moves between arrays, launches of one
checker whose arrays and reused shadow change roles, a shared variable whose
shadow is in each block's own frame (an entry kept from an earlier block
fails it), a misaligned access through
a site that was aligned before, and launches in which not every thread is
tracked (docs/instrumentation.md, "The checked access").

Forgetting global entries at each launch is tested by the whole program
tests/programs/fresh (tests/test_programs.py): a program keeps its arrays
and shadow across launches, so a stale entry serves a later launch without
the lookup marking the region touched; the scan after that launch then
neither clears its words nor lists them, and the next launch reports races.
"""

from __future__ import annotations

import numpy as np

import hirace_py
from hirace_py.checker import Checker
from hirace_py.config import Config
from hirace_py.launch_config import LaunchConfig

TWO_ARRAYS = """\
__global__ void two(int* a, int* b, int racy_a) {
  int i = threadIdx.x;
  int* p = (i & 1) ? a : b;   // one site, two arrays, alternating per thread
  p[i] = 1;
  int* q = racy_a ? a : b;
  q[i ^ 1] = 2;               // the neighbour's element: races in q only
}
"""


def test_one_site_over_two_arrays_reports_the_racy_one_only() -> None:
    for racy_a, name in ((1, "a"), (0, "b")):
        a, b = np.zeros(64, np.int32), np.zeros(64, np.int32)
        report = hirace_py.check(TWO_ARRAYS, "two", 1, 64, [a, b, racy_a], backend="cpu")
        assert {r.variable for r in report.races} == {name}
        # Half the elements of the racy array were written by `p[i] = 1`.
        assert sum(r.count for r in report.races) == 32


MOVING = """\
__global__ void neighbours(const float* in, float* out, int n, int racy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = in[i];
  if (racy && i + 1 < n) out[i + 1] = 0.0f;
}
"""


def test_launches_of_one_checker_use_each_launchs_shadow() -> None:
    checker = Checker(MOVING, "moving.cu", Config(), "cpu")
    sizes = [256, 1024, 256, 512]
    for k, n in enumerate(sizes):
        racy = k % 2
        out = np.zeros(n, np.float32)
        launch = checker.launch("neighbours", LaunchConfig.of(n // 64, 64),
                                [np.arange(n, dtype=np.float32), out, n, racy])  # fmt: skip
        if racy:
            # Every element but the first is written by two threads.
            assert {r.variable for r in launch.races} == {"out"}
            assert sum(r.count for r in launch.races) == n - 1
        else:
            assert not launch.races
            np.testing.assert_array_equal(out, np.arange(n, dtype=np.float32))


PICK = """\
__global__ void pick(int* a, int* b, int use_a) {
  int i = threadIdx.x;
  int* p = use_a ? a : b;
  p[i] = 1;
  p[i ^ 1] = 2;   // races with the neighbour's write
}
"""


def test_an_array_that_changes_roles_between_launches() -> None:
    # The same array is `a` in the first launch and `b` in the second, and the
    # second launch reuses the first one's shadow buffers in other roles: the
    # race must be on `b`, in a cleared shadow. (The checker runs each launch
    # in a child process, so the site cache itself starts empty in each;
    # whole programs, whose launches share one process, are
    # tests/programs/fresh.)
    checker = Checker(PICK, "pick.cu", Config(), "cpu")
    x, y, z = (np.zeros(64, np.int32) for _ in range(3))
    first = checker.launch("pick", LaunchConfig.of(1, 64), [x, y, 1])
    second = checker.launch("pick", LaunchConfig.of(1, 64), [z, x, 0])
    assert {r.variable for r in first.races} == {"a"}
    assert {r.variable for r in second.races} == {"b"}
    assert sum(r.count for r in second.races) == 64


SHARED = """\
__global__ void tile(int* out, int racy_block) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = t;
  if (blockIdx.x != racy_block) __syncthreads();
  out[blockIdx.x * 64 + t] = s[(t + 1) % 64];
}
"""


def test_shared_shadow_is_each_blocks_own() -> None:
    # Blocks run one after another; a shared entry kept from an earlier block
    # would step that block's frame: races in every block, or none.
    for racy_block in (0, 2, 3):
        out = np.zeros(4 * 64, np.int32)
        report = hirace_py.check(SHARED, "tile", 4, 64, [out, racy_block], backend="cpu")
        assert {r.variable for r in report.races} == {"s"}
        assert sum(r.count for r in report.races) == 64
        assert {r.first.block for r in report.races} == {(racy_block, 0, 0)}


MISALIGNED = """\
__global__ void bytes(int* base) {
  int i = threadIdx.x;
  // Thread 31's int starts 2 bytes into element 31 and ends in element 32,
  // which thread 32 writes: the only race. Earlier threads fill the site's
  // cache with aligned accesses.
  int off = 4 * i + (i == 31 ? 2 : 0);
  *(int*)((char*)base + off) = i;
}
"""


def test_a_misaligned_access_through_a_cached_site_steps_both_units() -> None:
    base = np.zeros(66, np.int32)
    report = hirace_py.check(MISALIGNED, "bytes", 1, 64, [base], backend="cpu")
    assert [r.element for r in report.races] == [32]


TRACKED = """\
__global__ void pairs(int* a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i / 2] = i;   // two threads per element: a race in every block
}
"""


def test_untracked_blocks_are_counted_with_the_cache() -> None:
    a = np.zeros(4 * 32, np.int32)
    config = Config(blocks=(1, 3))
    report = hirace_py.check(TRACKED, "pairs", 4, 64, [a], backend="cpu", config=config)
    launch = report.launches[0]
    assert launch.counters["skipped_blocks"] == 2 * 64
    # Blocks 1 and 2 are checked: 32 racing elements each.
    assert sum(r.count for r in report.races) == 64


WIDTHS = """\
template <class T>
__device__ void put(T* p, int i) { p[i] = (T)i; }   // one site, two access sizes

__global__ void widths(float* a, double* b, int racy) {
  int i = threadIdx.x;
  put(a, i);
  put(b, racy ? i / 2 : i);   // racy: two threads per element of b
}
"""


def test_one_template_site_of_two_sizes_keeps_them_apart() -> None:
    for racy in (0, 1):
        a, b = np.zeros(64, np.float32), np.zeros(64, np.float64)
        report = hirace_py.check(WIDTHS, "widths", 1, 64, [a, b, racy], backend="cpu")
        assert {r.variable for r in report.races} == ({"b"} if racy else set())
        assert sum(r.count for r in report.races) == 32 * racy
