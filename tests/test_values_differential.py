"""The values engine never reports a race the FSM engine does not (differential).

One kernel whose access pattern and barriers come from its inputs; Hypothesis
draws the pattern (reads and writes of shared and global memory by any thread,
with or without each of three uniform barriers, values with coincidences).
Both engines run it (`--engine both`): every race key the values engine finds
must be one the FSM engine finds, and every key only the FSM engine finds must
fall in a known false-negative class (hirace_py/values/compare.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hirace_py.launch_config import LaunchConfig
from hirace_py.values.compare import disagreements, key
from hirace_py.values.engines import BothChecker

MIX = """
__global__ void mix(const int *r, const int *w, const int *v, int *g, int *out, int sync)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = v[i];
    if (sync & 1) __syncthreads();
    int x = s[r[i] % blockDim.x];
    if (sync & 2) __syncthreads();
    s[w[i] % blockDim.x] = x + v[i];
    int y = g[r[i]];
    g[w[i]] = y + v[i];
    if (sync & 4) __syncthreads();
    out[i] = s[t] + g[i];
}
"""


@pytest.fixture(scope="module")
def both() -> BothChecker:
    return BothChecker(MIX, "mix.cu", backend="cpu")


@st.composite
def patterns(draw: st.DrawFn) -> tuple[int, int, list[np.ndarray], int]:
    blocks = draw(st.integers(1, 2))
    block = 32 * draw(st.integers(1, 4))
    n = blocks * block
    index = st.lists(st.integers(0, n - 1), min_size=n, max_size=n)
    r = np.array(draw(index), np.int32)
    w = np.array(draw(index), np.int32)
    v = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), np.int32)
    g = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), np.int32)
    return blocks, block, [r, w, v, g, np.zeros(n, np.int32)], draw(st.integers(0, 7))


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(case=patterns())
def test_values_races_are_fsm_races(both: BothChecker, case: tuple) -> None:
    blocks, block, arrays, sync = case
    both.launch("mix", LaunchConfig.of(blocks, block), [*arrays, sync])
    fsm = both.fsm.report.launches[-1]
    values = both.values.report.launches[-1]
    assert {key(r) for r in values.races} <= {key(r) for r in fsm.races}
    assert all(d.found_by == "fsm" for d in disagreements(fsm, values))
