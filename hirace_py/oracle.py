"""Exact happens-before race oracle over event traces (vector clocks).

The reference the FSM is checked against, written directly from docs/semantics.md
section 1 and sharing no reasoning with `hirace_py.fsm`:

* happens-before is the transitive closure of program order and barrier
  edges, computed with one vector clock per thread: a barrier joins the clocks
  of its participants and then ticks each participant's own entry;
* two actions conflict when they are by different threads on one location and
  not both reads, except that two atomics of one block never conflict and two
  atomics of different blocks conflict unless both are device-scope (GA);
* a race is a conflicting pair unordered by happens-before.

An earlier access e by thread u is ordered before a later access by t exactly
when e's own clock entry is at most t's view of u. Per location the oracle
keeps, for each thread and action kind, the clock and index of the *latest*
such access: if that one is ordered before the new access, so are all earlier
ones of that thread (program order), so checking the latest is exact.

The implementation is batched over traces (leading axis B) so that the
exhaustive tests can run millions of short traces at NumPy speed; a single
trace is a batch of one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hirace_py.fsm import Action
from hirace_py.trace import BSYNC, Grid, Trace


def conflicts(a: Action, b: Action, same_block: bool) -> bool:
    """Whether actions a and b by two different threads on one location conflict."""
    if a == Action.R and b == Action.R:
        return False
    atomics = (Action.BA, Action.GA)
    if a in atomics and b in atomics:
        return not same_block and not (a == Action.GA and b == Action.GA)
    return True


def _conflict_table(grid: Grid) -> np.ndarray:
    """CONF[t, a, k, u]: an action a by t conflicts with an earlier action k by u."""
    n = grid.threads
    block = grid.block_of()
    same = block[:, None] == block[None, :]
    other = ~np.eye(n, dtype=bool)
    conf = np.zeros((n, 4, 4, n), dtype=bool)
    for a in Action:
        for k in Action:
            conf[:, a, k, :] = other & np.where(same, conflicts(a, k, True), conflicts(a, k, False))
    return conf


def _participants(grid: Grid) -> tuple[np.ndarray, np.ndarray]:
    """Boolean (blocks, threads) and (warps, threads) barrier membership."""
    block, warp = grid.block_of(), grid.warp_of()
    by_block = block[None, :] == np.arange(grid.blocks)[:, None]
    by_warp = warp[None, :] == np.arange(grid.blocks * grid.warps)[:, None]
    return by_block, by_warp


def first_races(
    ops: np.ndarray, who: np.ndarray, locs: np.ndarray, grid: Grid, n_locs: int
) -> tuple[np.ndarray, np.ndarray]:
    """For a batch of traces (B, n): per location, when it first races and with what.

    Returns (at, partner), both int32 of shape (B, n_locs): `at` is the index
    of the event that completes the first racing pair on that location (-1 if
    the location never races), `partner` the index of the earlier access of
    that pair (the latest unordered conflicting access; -1 if none).
    """
    n_traces, n_events = ops.shape
    n_threads = grid.threads
    diag = np.arange(n_threads)
    dtype = np.int16 if n_events < 30000 else np.int32
    vc = np.zeros((n_traces, n_threads, n_threads), dtype)
    vc[:, diag, diag] = 1
    last = np.zeros((n_traces, n_locs, 4, n_threads), dtype)
    last_event = np.full((n_traces, n_locs, 4, n_threads), -1, np.int32)
    at = np.full((n_traces, n_locs), -1, np.int32)
    partner = np.full((n_traces, n_locs), -1, np.int32)
    conf = _conflict_table(grid)
    by_block, by_warp = _participants(grid)
    for i in range(n_events):
        op, w = ops[:, i], who[:, i]
        acc = np.flatnonzero(op < BSYNC)
        if acc.size:
            t, a, loc = w[acc], op[acc], locs[acc, i]
            view = vc[acc, t]
            hit = (last[acc, loc] > view[:, None, :]) & conf[t, a]
            new = hit.reshape(acc.size, -1).any(axis=1) & (at[acc, loc] < 0)
            if new.any():
                rows, rloc = acc[new], loc[new]
                at[rows, rloc] = i
                events = np.where(hit[new], last_event[rows, rloc], -1)
                partner[rows, rloc] = events.reshape(rows.size, -1).max(axis=1)
            last[acc, loc, a, t] = view[np.arange(acc.size), t]
            last_event[acc, loc, a, t] = i
        bar = np.flatnonzero(op >= BSYNC)
        if bar.size:
            part = np.where(
                (op[bar] == BSYNC)[:, None],
                by_block[np.minimum(w[bar], grid.blocks - 1)],
                by_warp[np.minimum(w[bar], grid.blocks * grid.warps - 1)],
            )
            clocks = vc[bar]
            joined = np.where(part[:, :, None], clocks, 0).max(axis=1)
            clocks = np.where(part[:, :, None], joined[:, None, :], clocks)
            clocks[:, diag, diag] += part.astype(dtype)
            vc[bar] = clocks
    return at, partner


@dataclass(frozen=True)
class Race:
    """The first racing pair on a location: event indices into the trace."""

    location: str
    first: int
    second: int


@dataclass(frozen=True)
class Verdict:
    """Oracle result for one trace: the first race per racy location."""

    races: dict[str, Race]
    race_at: np.ndarray

    @property
    def racy(self) -> bool:
        return bool(self.races)

    def racy_after(self, event: int, location: int) -> bool:
        """Whether the prefix ending at `event` has a race on `location`."""
        at = int(self.race_at[location])
        return 0 <= at <= event


def check(trace: Trace) -> Verdict:
    """Run the oracle on one trace."""
    n_locs = len(trace.locations)
    at, partner = first_races(
        trace.ops[None, :], trace.who[None, :], trace.locs[None, :], trace.grid, n_locs
    )
    races = {
        name: Race(name, int(partner[0, i]), int(at[0, i]))
        for i, name in enumerate(trace.locations)
        if at[0, i] >= 0
    }
    return Verdict(races, at[0])
