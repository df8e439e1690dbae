"""Exact happens-before race oracle over event traces (vector clocks).

The reference the FSM is checked against, written directly from docs/semantics.md
section 1 and sharing no reasoning with `hirace_py.fsm`:

* happens-before is the transitive closure of program order, barrier edges
  and synchronizes-with edges, computed with one vector clock per thread: a
  barrier joins the clocks of its participants (a block, the lanes of a
  warp's mask, or the whole grid) and then ticks each participant's own
  entry; a release publishes the releaser's clock on the flag location and
  ticks it, and an acquire joins what its atomic observed (section 1.6);
* causality order adds observation (section 1.6, "Observation order"): an
  atomic write precedes every event that happens after an atomic observing
  it through a chain of morally strong read-modify-writes. Each location
  keeps its current chain (per thread, the clock entry of its latest atomic
  write in it); an atomic folds the chain it reads into extra columns of its
  thread's vector clock, one per (writer, location), which travel wherever
  the clock travels (barriers, releases, acquires) and never compose with a
  second observation, as PTX's causality order does not;
* two actions conflict when they are by different threads on one location and
  not both reads (an atomic load is a read), except that two atomics of one
  block never conflict and two atomics of different blocks conflict unless
  both are device-scope (GA, GL);
* an atomic load (BL, GL) is an atomic like any other for observation (it
  reads the chain and, as every atomic here, continues it) and acquires, but
  never releases: it writes nothing;
* a race is a conflicting pair unordered by happens-before.

An earlier access e by thread u is ordered before a later access by t exactly
when e's own clock entry is at most t's view of u, or e is an atomic write
and its entry is at most t's observed view of (u, e's location). Per location the oracle
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
from hirace_py.trace import (
    ACQUIRE,
    BSYNC,
    FENCE,
    RELEASE,
    WSYNC,
    Grid,
    Trace,
    action_of,
    order_of,
)

_READS = (Action.R, Action.BL, Action.GL)
_ATOMICS = (Action.BA, Action.GA, Action.BL, Action.GL)
_DEVICE = (Action.GA, Action.GL)


def conflicts(a: Action, b: Action, same_block: bool) -> bool:
    """Whether actions a and b by two different threads on one location conflict."""
    if a in _READS and b in _READS:
        return False
    if a in _ATOMICS and b in _ATOMICS:
        return not same_block and not (a in _DEVICE and b in _DEVICE)
    return True


def _conflict_table(grid: Grid) -> np.ndarray:
    """CONF[t, a, k, u]: an action a by t conflicts with an earlier action k by u."""
    n = grid.threads
    block = grid.block_of()
    same = block[:, None] == block[None, :]
    other = ~np.eye(n, dtype=bool)
    k = len(Action)
    conf = np.zeros((n, k, k, n), dtype=bool)
    for a in Action:
        for k in Action:
            conf[:, a, k, :] = other & np.where(same, conflicts(a, k, True), conflicts(a, k, False))
    return conf


def _members(op: np.ndarray, who: np.ndarray, mask: np.ndarray, grid: Grid) -> np.ndarray:
    """Boolean (k, threads): the participants of k barrier events."""
    block, warp, lane = grid.block_of(), grid.warp_of(), grid.lane_of()
    in_mask = np.where(mask[:, None] == 0, True, (mask[:, None] >> lane[None, :]) & 1 == 1)
    return np.select(
        [(op == BSYNC)[:, None], (op == WSYNC)[:, None]],
        [block[None, :] == who[:, None], (warp[None, :] == who[:, None]) & in_mask],
        default=True,
    )


class _Messages:
    """Release/acquire bookkeeping of docs/semantics.md section 1.6 for a batch.

    Per location, the clocks its releases published: `dev` (device-scope
    releases, for device-scope acquirers anywhere), `legacy` (the subset made
    by a device fence, which any device-scope atomic acquires) and `blk[b]`
    (every release by a thread of block b, for acquirers in block b). Per
    thread, its view at its last fence of device scope (`fdev`) and of any
    scope (`fany`), and what its atomics observed since, for a later fence to
    acquire (`pdev` at device scope, `pblk` at block scope). Every vector has
    the clock's `cols` columns, observed columns included.
    """

    def __init__(self, n_traces: int, n_locs: int, grid: Grid, cols: int, dtype: type) -> None:
        n = grid.threads
        self.dev = np.zeros((n_traces, n_locs, cols), dtype)
        self.legacy = np.zeros((n_traces, n_locs, cols), dtype)
        self.blk = np.zeros((n_traces, n_locs, grid.blocks, cols), dtype)
        self.fdev = np.zeros((n_traces, n, cols), dtype)
        self.fany = np.zeros((n_traces, n, cols), dtype)
        self.pdev = np.zeros((n_traces, n, cols), dtype)
        self.pblk = np.zeros((n_traces, n, cols), dtype)

    def acquire(
        self,
        vc: np.ndarray,
        rows: np.ndarray,
        t: np.ndarray,
        b: np.ndarray,
        loc: np.ndarray,
        action: np.ndarray,
        order: np.ndarray,
    ) -> None:
        """An atomic by t observes loc: acquire now or remember for a fence."""
        device = (action == Action.GA) | (action == Action.GL)
        own = self.blk[rows, loc, b]
        reach = np.where(device[:, None], np.maximum(self.dev[rows, loc], own), own)
        gain = np.where(device[:, None], self.legacy[rows, loc], 0)
        gain = np.where((order & ACQUIRE != 0)[:, None], np.maximum(gain, reach), gain)
        vc[rows, t] = np.maximum(vc[rows, t], gain)
        self.pdev[rows, t] = np.maximum(self.pdev[rows, t], reach)
        self.pblk[rows, t] = np.maximum(self.pblk[rows, t], own)

    def release(
        self,
        vc: np.ndarray,
        rows: np.ndarray,
        t: np.ndarray,
        b: np.ndarray,
        loc: np.ndarray,
        action: np.ndarray,
        order: np.ndarray,
    ) -> None:
        """An atomic by t on loc publishes t's fences, and t's view if it releases."""
        device = (action == Action.GA)[:, None]
        ordered = (order & RELEASE != 0)[:, None]
        view = vc[rows, t]
        fenced = np.where(device, self.fdev[rows, t], 0)
        self.legacy[rows, loc] = np.maximum(self.legacy[rows, loc], fenced)
        dev = np.where(device & ordered, view, fenced)
        self.dev[rows, loc] = np.maximum(self.dev[rows, loc], dev)
        blk = np.where(ordered, view, self.fany[rows, t])
        self.blk[rows, loc, b] = np.maximum(self.blk[rows, loc, b], blk)

    def fence(self, vc: np.ndarray, rows: np.ndarray, t: np.ndarray, device: np.ndarray) -> None:
        """A fence by t: acquire what t's atomics observed, then mark a release point."""
        pending = np.where(device[:, None], self.pdev[rows, t], self.pblk[rows, t])
        vc[rows, t] = np.maximum(vc[rows, t], pending)
        view = vc[rows, t]
        self.fany[rows, t] = view
        self.fdev[rows, t] = np.where(device[:, None], view, self.fdev[rows, t])


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
    block_of = grid.block_of()
    dtype = np.int16 if n_events < 30000 else np.int32
    # Columns: the thread entries, then the observed entries of (writer u,
    # location l) at n_threads + l * n_threads + u.
    cols = n_threads * (1 + n_locs)
    vc = np.zeros((n_traces, n_threads, cols), dtype)
    vc[:, diag, diag] = 1
    last = np.zeros((n_traces, n_locs, len(Action), n_threads), dtype)
    last_event = np.full((n_traces, n_locs, len(Action), n_threads), -1, np.int32)
    at = np.full((n_traces, n_locs), -1, np.int32)
    partner = np.full((n_traces, n_locs), -1, np.int32)
    conf = _conflict_table(grid)
    chains = _Chains(n_traces, n_locs, grid, dtype)
    messages = None
    if ((ops >= FENCE) | ((ops < BSYNC) & (order_of(ops) != 0))).any():
        messages = _Messages(n_traces, n_locs, grid, cols, dtype)
    for i in range(n_events):
        op, w = ops[:, i], who[:, i]
        acc = np.flatnonzero(op < BSYNC)
        if acc.size:
            t, a, loc = w[acc], action_of(op[acc]), locs[acc, i]
            order = order_of(op[acc])
            atomic = np.flatnonzero(a >= Action.BA)
            if messages is not None and atomic.size:
                messages.acquire(vc, acc[atomic], t[atomic], block_of[t[atomic]], loc[atomic],
                                 a[atomic], order[atomic])  # fmt: skip
            view = vc[acc, t]
            observed = _observed_view(view, loc, n_threads)
            seen = last[acc, loc] <= observed[:, None, :]
            seen[:, : Action.BA] = False
            hit = (last[acc, loc] > view[:, None, :n_threads]) & ~seen & conf[t, a]
            new = hit.reshape(acc.size, -1).any(axis=1) & (at[acc, loc] < 0)
            if new.any():
                rows, rloc = acc[new], loc[new]
                at[rows, rloc] = i
                events = np.where(hit[new], last_event[rows, rloc], -1)
                partner[rows, rloc] = events.reshape(rows.size, -1).max(axis=1)
            own = view[np.arange(acc.size), t]
            last[acc, loc, a, t] = own
            last_event[acc, loc, a, t] = i
            chains.write(vc, acc, t, a, loc, own)
            # Each atomic write its own clock entry: observation tells them apart.
            vc[acc[atomic], t[atomic], t[atomic]] += 1
            writes = np.flatnonzero((a == Action.BA) | (a == Action.GA))
            if messages is not None and writes.size:
                # A load writes nothing, so it releases nothing.
                rows, ta = acc[writes], t[writes]
                messages.release(vc, rows, ta, block_of[ta], loc[writes], a[writes],
                                 order[writes])  # fmt: skip
                ticks = rows[order[writes] & RELEASE != 0]
                vc[ticks, w[ticks], w[ticks]] += 1
        fence = np.flatnonzero(op >= FENCE)
        if fence.size and messages is not None:
            t = w[fence]
            messages.fence(vc, fence, t, op[fence] == FENCE)
            vc[fence, t, t] += 1
        bar = np.flatnonzero((op >= BSYNC) & (op < FENCE))
        if bar.size:
            part = _members(op[bar], np.minimum(w[bar], _bound(op[bar], grid)), locs[bar, i], grid)
            clocks = vc[bar]
            joined = np.where(part[:, :, None], clocks, 0).max(axis=1)
            clocks = np.where(part[:, :, None], joined[:, None, :], clocks)
            clocks[:, diag, diag] += part.astype(dtype)
            vc[bar] = clocks
    return at, partner


def _observed_view(view: np.ndarray, loc: np.ndarray, n: int) -> np.ndarray:
    """(k, n): the observed columns of k views, each for its access's location."""
    start = n + loc * n
    return np.take_along_axis(view, start[:, None] + np.arange(n)[None, :], axis=1)


class _Chains:
    """The chain of morally strong atomic writes each location's next atomic reads.

    PTX observation order (docs/semantics.md 1.6): an atomic reads the latest
    write of the location (its trace order is the coherence order), and
    observes it, and through read-modify-writes everything that write
    observed, when each link is morally strong: by one thread, or two atomics
    whose scopes both contain both threads. `chain[l, u]` is the clock entry
    of u's latest atomic write in location l's chain (0: none); `writer` and
    `kind` describe the latest write (kind -1: none or a plain write, which
    ends the chain: a plain write is no read-modify-write).
    """

    def __init__(self, n_traces: int, n_locs: int, grid: Grid, dtype: type) -> None:
        self.n = grid.threads
        self.block_of = grid.block_of()
        self.chain = np.zeros((n_traces, n_locs, self.n), dtype)
        self.writer = np.zeros((n_traces, n_locs), np.int32)
        self.kind = np.full((n_traces, n_locs), -1, np.int8)

    def write(
        self,
        vc: np.ndarray,
        rows: np.ndarray,
        t: np.ndarray,
        action: np.ndarray,
        loc: np.ndarray,
        own: np.ndarray,
    ) -> None:
        """Accesses (rows, t, action, loc) happened; `own` is each one's clock entry."""
        atomic = action >= Action.BA
        plain_write = action == Action.W
        prev, kind = self.writer[rows, loc], self.kind[rows, loc]
        same_block = self.block_of[prev] == self.block_of[t]
        device = (kind == Action.GA) | (kind == Action.GL)
        strong = (kind >= Action.BA) & (
            (prev == t) | same_block | (device & ((action == Action.GA) | (action == Action.GL)))
        )
        reads = np.where((atomic & strong)[:, None], self.chain[rows, loc], 0)
        start = self.n + loc * self.n
        span = start[:, None] + np.arange(self.n)[None, :]
        cur = np.take_along_axis(vc[rows, t], span, axis=1)
        vc[rows[:, None], t[:, None], span] = np.maximum(cur, reads)
        chain = reads
        chain[np.arange(rows.size), t] = np.where(atomic, own, 0)
        keep = atomic | plain_write
        self.chain[rows[keep], loc[keep]] = chain[keep]
        self.writer[rows[keep], loc[keep]] = t[keep]
        self.kind[rows[keep], loc[keep]] = np.where(atomic, action, -1)[keep]


def _bound(op: np.ndarray, grid: Grid) -> np.ndarray:
    """Largest valid `who` of each barrier event (ids in padded batches may exceed it)."""
    return np.where(op == BSYNC, grid.blocks - 1, grid.blocks * grid.warps - 1)


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
