"""Hypothesis strategies for event traces that are often race-free for a while.

Purely random traces race almost at once, so traces draw from a small cast
of threads and mix reads and atomics with frequent barriers (block, full-warp
and grid). `extended` adds the rest of docs/semantics.md sections 1.3 and
1.6: partial-mask warp barriers, fences, and atomics with memory orders.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from hirace_py.fsm import Action
from hirace_py.trace import ACTION_BITS, BSYNC, FENCE, FENCE_BLOCK, GSYNC, WSYNC, Grid, Trace


@st.composite
def traces(
    draw: st.DrawFn, max_events: int = 40, max_dim: int = 3, extended: bool = False
) -> Trace:
    grid = Grid(
        draw(st.integers(1, max_dim)), draw(st.integers(1, max_dim)), draw(st.integers(1, max_dim))
    )
    n_locs = draw(st.integers(1, 2))
    cast = draw(st.lists(st.integers(0, grid.threads - 1), min_size=1, max_size=4))
    # Per action (R, W, BA, GA, BL, GL); the last two mixes are the atomic
    # loads' own: loads with reads, and loads with device-scope atomics.
    weights = draw(st.sampled_from([(6, 1, 1, 1, 0, 0), (1, 1, 4, 4, 0, 0), (3, 1, 1, 4, 0, 0),
                                    (2, 2, 2, 2, 1, 1), (4, 1, 0, 0, 2, 4), (1, 1, 1, 4, 1, 4)]))
    actions = [a for a, w in enumerate(weights) for _ in range(w)]
    n = draw(st.integers(1, max_events))
    ops, who, locs = [], [], []
    kinds = ["access"] * 6 + ["bsync"] * 2 + ["wsync"] * 2 + ["gsync"]
    if extended:
        kinds += ["mask"] * 2 + ["fence"] * 2
    for _ in range(n):
        kind = draw(st.sampled_from(kinds))
        t = draw(st.sampled_from(cast))
        if kind == "access":
            op = draw(st.sampled_from(actions))
            if extended and op >= Action.BA:
                load = op in (Action.BL, Action.GL)
                op += draw(st.integers(0, 1 if load else 3)) << ACTION_BITS
            ops.append(op)
            who.append(t)
            locs.append(draw(st.integers(0, n_locs - 1)))
        elif kind == "mask":
            ops.append(WSYNC)
            who.append(int(grid.warp_of()[t]))
            locs.append(draw(st.integers(1, grid.full_mask)))
        elif kind == "gsync":
            ops.append(GSYNC)
            who.append(0)
            locs.append(0)
        elif kind == "fence":
            ops.append(draw(st.sampled_from([FENCE, FENCE_BLOCK])))
            who.append(t)
            locs.append(0)
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
