"""Hypothesis strategies for event traces that are often race-free for a while.

Purely random traces race almost at once, so traces draw from a small cast
of threads and mix reads and atomics with frequent barriers.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from hirace_py.trace import BSYNC, WSYNC, Grid, Trace


@st.composite
def traces(draw: st.DrawFn, max_events: int = 40, max_dim: int = 3) -> Trace:
    grid = Grid(
        draw(st.integers(1, max_dim)), draw(st.integers(1, max_dim)), draw(st.integers(1, max_dim))
    )
    n_locs = draw(st.integers(1, 2))
    cast = draw(st.lists(st.integers(0, grid.threads - 1), min_size=1, max_size=4))
    weights = draw(st.sampled_from([(6, 1, 1, 1), (1, 1, 4, 4), (3, 1, 1, 4), (2, 2, 2, 2)]))
    actions = [a for a, w in enumerate(weights) for _ in range(w)]
    n = draw(st.integers(1, max_events))
    ops, who, locs = [], [], []
    for _ in range(n):
        kind = draw(st.sampled_from(["access"] * 3 + ["bsync", "wsync"]))
        t = draw(st.sampled_from(cast))
        if kind == "access":
            ops.append(draw(st.sampled_from(actions)))
            who.append(t)
            locs.append(draw(st.integers(0, n_locs - 1)))
        elif kind == "bsync":
            ops.append(BSYNC)
            who.append(int(grid.block_of()[t]))
            locs.append(0)
        else:
            ops.append(WSYNC)
            who.append(int(grid.warp_of()[t]))
            locs.append(0)
    return Trace(
        grid,
        np.array(ops, np.int8),
        np.array(who, np.int32),
        np.array(locs, np.int32),
        [str(i) for i in range(n_locs)],
    )
