"""Deterministic runs: the values engine's union-copy results, whatever the schedule.

The property (docs/engines.md, "Deterministic runs"): for a kernel without
atomics whose conflicting accesses are all by different warps, every read sees
its barrier interval's start value (for another block's global writes: the
launch's start value), and a byte changed by several warps (blocks) ends with
the highest warp's (block's) value. The results then do not depend on the
schedule, racy or not, and equal a NumPy model of those rules. Plain execution
of the same racy kernel does depend on the schedule: the test shows it, so
the property is not vacuous.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hirace_py.backends import cpu
from hirace_py.launch_config import LaunchConfig
from hirace_py.values.checker import ValuesChecker
from hirace_py.values.engines import make_checker

# Every thread reads and then writes the element `target[t]`; the lanes of one
# warp have distinct targets, so every conflict is between warps (or blocks).
SCATTER = """
__global__ void scatter(const int *target, int *data, int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = data[target[t]];
    data[target[t]] = t * 7 % 5;
}
"""


def union_model(target: np.ndarray, data: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray]:
    """Results under union-copy semantics: reads see the start values; per block the
    highest warp that changed an element wins, across blocks the highest block."""
    out = data[target]
    final = data.copy()
    blocks = target.size // block
    for b in range(blocks):
        block_value: dict[int, int] = {}
        for t in range(b * block, (b + 1) * block):  # threads in warp order
            v = t * 7 % 5
            if v != data[target[t]]:  # only a change is a write to the values engine
                block_value[int(target[t])] = v
        for e, v in block_value.items():  # later blocks overwrite: the highest wins
            final[e] = v
    return out, final


@st.composite
def scatters(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int, int]:
    warps = draw(st.integers(1, 3))
    blocks = draw(st.integers(1, 3))
    n = 32 * warps * blocks
    size = draw(st.integers(32, n))
    target = np.concatenate([
        np.array(draw(st.permutations(range(size)))[:32], np.int32)
        for _ in range(warps * blocks)
    ])  # fmt: skip
    data = np.array(draw(st.lists(st.integers(0, 4), min_size=size, max_size=size)), np.int32)
    return target, data, 32 * warps, blocks


@pytest.fixture(scope="module")
def values() -> ValuesChecker:
    return ValuesChecker(SCATTER, "scatter.cu", backend="cpu")


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(case=scatters(), seeds=st.lists(st.integers(0, 2**32), min_size=2, max_size=3))
def test_union_results_are_schedule_independent_and_match_the_model(
    values: ValuesChecker, case: tuple, seeds: list[int]
) -> None:
    target, data, block, blocks = case
    want_out, want_data = union_model(target, data, block)
    for schedule, seed in [("inorder", 0), *(("random", s) for s in seeds)]:
        d, out = data.copy(), np.zeros(target.size, np.int32)
        config = LaunchConfig.of(blocks, block, seed=seed, schedule=schedule)
        values.launch("scatter", config, [target, d, out])
        np.testing.assert_array_equal(out, want_out)
        np.testing.assert_array_equal(d, want_data)


def test_plain_execution_of_the_racy_kernel_depends_on_the_schedule() -> None:
    """Without the union copy the same kernel's results change with the seed."""
    mod = cpu.compile(SCATTER, filename="scatter.cu")
    rng = np.random.default_rng(1)
    target = np.concatenate([rng.permutation(128)[:32] for _ in range(4)]).astype(np.int32)
    data = rng.integers(0, 5, 128).astype(np.int32)
    seen = set()
    for seed in range(8):
        d, out = data.copy(), np.zeros(128, np.int32)
        mod.launch("scatter", 1, 128, [target, d, out], seed=seed, schedule="random")
        seen.add((out.tobytes(), d.tobytes()))
    assert len(seen) > 1


FLOAT_SUM = """
__global__ void fsum(const float *x, float *sum, float *copy)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(sum, x[t]);
    copy[t] = x[t];
}
"""


def test_atomics_are_not_made_deterministic_and_the_report_says_so() -> None:
    """Atomics act on memory in schedule order (a float sum's rounding follows it);
    the report names them, and the plain part of the results stays deterministic."""
    checker = make_checker("values", FLOAT_SUM, "fsum.cu", backend="cpu")
    x = np.array([1e8, 1.0, -1e8, 1.0] * 16, np.float32)
    sums, copies = set(), set()
    for seed in range(12):
        s, c = np.zeros(1, np.float32), np.zeros(64, np.float32)
        config = LaunchConfig.of(2, 32, seed=seed, schedule="random")
        launch = checker.launch("fsum", config, [x, s, c])
        assert [n.code for n in launch.notices] == ["values-atomics"]
        assert launch.counters["atomic_bytes"] == 4 and launch.counters["atomic_accesses"] == 64
        sums.add(float(s[0]))
        copies.add(c.tobytes())
    assert copies == {x.tobytes()}
    assert len(sums) > 1  # the schedule changes the rounding: no determinism is claimed
