"""Replay traces through the FSM exactly as the instrumented device code does.

Each thread keeps three scalar clocks: `gc`, the grid barriers it has
passed, `bc`, the block barriers, and `wc`, the warp barriers over its lane
group (the table's warp level: aligned groups of `group` lanes, the whole
warp by default, docs/semantics.md 1.3). Each location has a shadow word:
the FSM state and the last accessor's thread and clocks. What the runtime
does not model is not replayed either: a warp barrier over other lanes and a
fence change no clock, and an atomic's memory order is dropped (docs/fsm.md,
"What the table does not model"), so on traces with those events the replay
may report races the oracle does not, never the other way round. On an
access the relation and the sync status are computed from the shadow word
and the accessor's clocks (docs/semantics.md section 2), the table gives the
next state, and the accessor replaces the last accessor. A zeroed word is INIT whatever its
other fields hold, which is what lets device code start from cleared shadow.

Batched over traces like `hirace_py.oracle`, for the exhaustive tests.
"""

from __future__ import annotations

import numpy as np

from hirace_py.fsm import FLAT_TRANSITIONS, Rel, Sync, flat_index
from hirace_py.trace import BSYNC, GSYNC, WSYNC, Grid, Trace, action_of


def lane_groups(grid: Grid, group: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(id, mask) of every thread's lane group: a grid-wide group id, and the
    group's lanes in its warp (groups of `group` aligned lanes, default the
    whole warp, cut to the lanes the warp has)."""
    width = grid.lanes if group is None else group
    if width < 1:
        raise ValueError(f"a lane group has at least one lane, got {width}")
    lane = grid.lane_of()
    first = lane // width * width
    ids = grid.warp_of() * grid.lanes + first
    masks = ((1 << np.minimum(first + width, grid.lanes)) - (1 << first)).astype(np.int64)
    return ids, masks


def relation_table(grid: Grid, group: int | None = None) -> np.ndarray:
    """REL[t, p]: relation of thread t to thread p (S, W, B or G); W is the
    same lane group (`lane_groups`)."""
    block, ids = grid.block_of(), lane_groups(grid, group)[0]
    rel = np.full((grid.threads, grid.threads), Rel.G, np.int8)
    rel[block[:, None] == block[None, :]] = Rel.B
    rel[ids[:, None] == ids[None, :]] = Rel.W
    np.fill_diagonal(rel, Rel.S)
    return rel


def warp_ticks(grid: Grid, warp: np.ndarray, mask: np.ndarray,
               group: int | None = None) -> np.ndarray:  # fmt: skip
    """(k, threads) bool: whose warp clock each of k `wsync warp mask` events
    advances: the lanes in the mask (0: all) when its lanes are exactly their
    lane group, as the runtime's `Thread::warp_barrier` decides."""
    masks = lane_groups(grid, group)[1]
    full = grid.full_mask
    lanes = np.where(mask == 0, full, mask & full).astype(np.int64)[:, None]
    inside = (lanes >> grid.lane_of()[None, :]) & 1 == 1
    return (grid.warp_of()[None, :] == warp[:, None]) & inside & (masks[None, :] == lanes)


def replay(
    ops: np.ndarray,
    who: np.ndarray,
    locs: np.ndarray,
    grid: Grid,
    n_locs: int,
    table: np.ndarray = FLAT_TRANSITIONS,
    coverage: bool = False,
    group: int | None = None,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """FSM state of the accessed location after each event: int array (B, n).

    With `coverage`, also returns the flat table index each access used
    (B, n), -1 at barriers. Barrier events get -1. Only the accessed location changes at an access,
    so this determines every location's state after every prefix. `table` is
    a flat transition table (see `hirace_py.fsm.flat_index`); tests pass
    mutated tables here. `group` is the lanes of a lane group (default: the
    warp), as the runtime built with HIRACE_GROUP_LOG2 has them.
    """
    n_traces, n_events = ops.shape
    rel_of = relation_table(grid, group)
    block = grid.block_of()
    gc = np.zeros(n_traces, np.int32)
    bc = np.zeros((n_traces, grid.threads), np.int32)
    wc = np.zeros((n_traces, grid.threads), np.int32)
    state = np.zeros((n_traces, n_locs), np.int32)
    last = np.zeros((n_traces, n_locs), np.int32)
    last_gc = np.zeros((n_traces, n_locs), np.int32)
    last_bc = np.zeros((n_traces, n_locs), np.int32)
    last_wc = np.zeros((n_traces, n_locs), np.int32)
    out = np.full((n_traces, n_events), -1, np.int32)
    used = np.full((n_traces, n_events), -1, np.int32) if coverage else None
    for i in range(n_events):
        op, w, loc = ops[:, i], who[:, i], locs[:, i]
        acc = np.flatnonzero(op < BSYNC)
        if acc.size:
            t, lo = w[acc], loc[acc]
            tgc, tbc, twc = gc[acc], bc[acc, t], wc[acc, t]
            sync = np.select(
                [tgc > last_gc[acc, lo], tbc > last_bc[acc, lo], twc > last_wc[acc, lo]],
                [Sync.G, Sync.B, Sync.W],
                Sync.U,
            )
            rel = rel_of[t, last[acc, lo]]
            index = flat_index(state[acc, lo], action_of(op[acc]), sync, rel)
            state[acc, lo] = table[index]
            out[acc, i] = state[acc, lo]
            if used is not None:
                used[acc, i] = index
            last[acc, lo] = t
            last_gc[acc, lo] = tgc
            last_bc[acc, lo] = tbc
            last_wc[acc, lo] = twc
        is_b = op == BSYNC
        if is_b.any():
            bc += is_b[:, None] & (block[None, :] == w[:, None])
        gc += op == GSYNC
        is_w = op == WSYNC
        if is_w.any():
            wc += is_w[:, None] & warp_ticks(grid, w, loc, group)
    return (out, used) if used is not None else out


def replay_trace(trace: Trace, table: np.ndarray = FLAT_TRANSITIONS) -> np.ndarray:
    """State of the accessed location after each event of one trace (-1 at barriers)."""
    return replay(
        trace.ops[None, :],
        trace.who[None, :],
        trace.locs[None, :],
        trace.grid,
        len(trace.locations),
        table,
    )[0]
