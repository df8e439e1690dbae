"""Differential check of an FSM table against the happens-before oracle.

Used by the exhaustive and property tests, the mutation tests, and
`hirace verify` when it picks table mutations that change behaviour. A
disagreement is an access after which the table's state for the accessed
location is RACE while the oracle finds no race on that location so far, or
the other way round. Only the accessed location can change at an event, so
comparing at accesses compares every location after every prefix.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from hirace_py.fsm import FLAT_TRANSITIONS, RACE, SOUND_ONLY, Action, Sync, flat_index
from hirace_py.oracle import first_races
from hirace_py.replay import relation_table, replay
from hirace_py.trace import ACTION_BITS, BSYNC, FENCE, FENCE_BLOCK, GSYNC, WSYNC, Grid


@dataclass(frozen=True)
class Batch:
    """A batch of traces over one grid, as (B, n) event arrays."""

    grid: Grid
    ops: np.ndarray
    who: np.ndarray
    locs: np.ndarray
    n_locs: int = 1


def alphabet(
    grid: Grid,
    threads: list[int] | None = None,
    extended: bool = False,
    actions: tuple[Action, ...] = tuple(Action),
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Single-location events (ops, who, locs): each action by each thread, each barrier.

    With `threads`, only those threads access, and only their blocks and
    warps have barriers. The grid barrier is always there. `extended` adds
    what the table does not model exactly (docs/fsm.md): warp barriers of
    every partial mask, fences of both scopes, and atomics with acquire,
    release and both orders. `actions` are the memory actions (all by default).
    """
    if threads is None:
        threads = list(range(grid.threads))
    blocks = sorted({int(grid.block_of()[t]) for t in threads})
    warps = sorted({int(grid.warp_of()[t]) for t in threads})
    events = [(int(a), t, 0) for a in actions for t in threads]
    events += [(BSYNC, b, 0) for b in blocks] + [(WSYNC, w, 0) for w in warps] + [(GSYNC, 0, 0)]
    if extended:
        masks = range(1, grid.full_mask)
        events += [(WSYNC, w, m) for w in warps for m in masks]
        events += [(f, t, 0) for f in (FENCE, FENCE_BLOCK) for t in threads]
        ordered = [(a, o) for a in (Action.BA, Action.GA) if a in actions for o in (1, 2, 3)]
        ordered += [(a, 1) for a in (Action.BL, Action.GL) if a in actions]
        events += [(int(a) + (o << ACTION_BITS), t, 0) for a, o in ordered for t in threads]
    ops, who, locs = zip(*events, strict=True)
    return np.array(ops, np.int8), np.array(who, np.int32), np.array(locs, np.int32)


def relation_threads(grid: Grid) -> list[int]:
    """Four threads of a 2x2x2 grid that stand in every relation to each other:
    two lanes of one warp, a thread of the other warp, a thread of the other block."""
    return [grid.thread(0, 0, 0), grid.thread(0, 0, 1), grid.thread(0, 1, 0), grid.thread(1, 0, 0)]


def exhaustive(
    grid: Grid,
    length: int,
    threads: list[int] | None = None,
    extended: bool = False,
    actions: tuple[Action, ...] = tuple(Action),
) -> Iterator[Batch]:
    """Every trace of exactly `length` events on one location, in chunks.

    Verdicts are checked after every prefix, so this also covers every
    shorter trace. Chunks fix the first event to bound memory. `threads`,
    `extended` and `actions` choose the alphabet as in `alphabet`.
    """
    ops_a, who_a, locs_a = alphabet(grid, threads, extended, actions)
    rest = np.array(list(itertools.product(range(len(ops_a)), repeat=length - 1)), np.int32)
    rest = rest.reshape(-1, length - 1)
    for first in range(len(ops_a)):
        idx = np.concatenate([np.full((len(rest), 1), first, np.int32), rest], axis=1)
        yield Batch(grid, ops_a[idx], who_a[idx], locs_a[idx])


@dataclass(frozen=True)
class Comparison:
    """Result of comparing a table with the oracle on a batch."""

    traces: int
    checked_prefixes: int
    disagreements: int
    missed: int
    """Prefixes where the oracle finds a race and the table does not (of `disagreements`)."""
    first_bad: int
    """Index in the batch of the first trace with a disagreement, or -1."""
    sound_only: int
    """False alarms the table is allowed (not in `disagreements`): prefixes whose
    location went to RACE through an entry of `fsm.SOUND_ONLY` while the oracle
    found no race there."""
    loads: int
    """False alarms after an atomic load (not in `disagreements`, not in
    `sound_only`): with atomic loads the table is sound, not exact
    (docs/fsm.md, "Atomic loads")."""
    entries: np.ndarray
    """Flat table indices used by some access of the batch (a coverage set)."""


def oracle_verdicts(batch: Batch) -> np.ndarray:
    """(B, n) bool: after event i, has the location it accessed raced? False at barriers."""
    at, _ = first_races(batch.ops, batch.who, batch.locs, batch.grid, batch.n_locs)
    access = batch.ops < BSYNC
    at_loc = np.take_along_axis(at, np.where(access, batch.locs, 0), axis=1)
    n = batch.ops.shape[1]
    return (at_loc >= 0) & (at_loc <= np.arange(n)[None, :]) & access


def compare(
    batch: Batch, table: np.ndarray = FLAT_TRANSITIONS, verdicts: np.ndarray | None = None
) -> Comparison:
    """Compare `table` with the oracle after every access of every trace in the batch.

    `verdicts` (from `oracle_verdicts`) may be passed in to reuse them across
    tables; they do not depend on the table.
    """
    if verdicts is None:
        verdicts = oracle_verdicts(batch)
    states, entries = replay(
        batch.ops, batch.who, batch.locs, batch.grid, batch.n_locs, table, coverage=True
    )
    access = batch.ops < BSYNC
    bad = ((states == RACE) != verdicts) & access
    excused = sound_only_false_alarms(batch, entries, bad & ~verdicts)
    bad &= ~excused
    loads = load_false_alarms(batch, bad & ~verdicts)
    bad &= ~loads
    missed = int((bad & verdicts).sum())
    per_trace = bad.any(axis=1)
    first = int(np.argmax(per_trace)) if per_trace.any() else -1
    return Comparison(
        traces=batch.ops.shape[0],
        checked_prefixes=int(access.sum()),
        disagreements=int(bad.sum()),
        missed=missed,
        first_bad=first,
        sound_only=int(excused.sum()),
        loads=int(loads.sum()),
        entries=np.unique(entries[access]),
    )


def sound_only_false_alarms(
    batch: Batch, entries: np.ndarray, false_alarm: np.ndarray
) -> np.ndarray:
    """(B, n) bool: of the `false_alarm` accesses, those on a location that
    went to RACE through a `SOUND_ONLY` entry (`entries`: the flat table index
    each access used, as `replay` gives them), at that access or after it."""
    sound = np.isin(entries, list(SOUND_ONLY)) & false_alarm
    out = np.zeros_like(false_alarm)
    for loc in range(batch.n_locs):
        here = batch.locs == loc
        out |= np.logical_or.accumulate(sound & here, axis=1) & here & false_alarm
    return out


def load_false_alarms(batch: Batch, false_alarm: np.ndarray) -> np.ndarray:
    """(B, n) bool: of the `false_alarm` accesses, those on a location that an
    atomic load accessed before them or at them."""
    action = batch.ops & ((1 << ACTION_BITS) - 1)
    load = (batch.ops < BSYNC) & ((action == Action.BL) | (action == Action.GL))
    out = np.zeros_like(false_alarm)
    for loc in range(batch.n_locs):
        here = batch.locs == loc
        out |= np.logical_or.accumulate(load & here, axis=1) & here & false_alarm
    return out


def _normalise(counters: tuple[int, ...]) -> tuple[int, ...]:
    """Shift counters so the smallest is 0: comparisons between them are unchanged."""
    low = min(counters)
    return tuple(c - low for c in counters)


def witnesses(grid: Grid, threads: list[int] | None = None, max_len: int = 10) -> dict[int, Batch]:
    """A shortest trace for every table entry reachable on `grid`, by flat index.

    Breadth-first search over replay configurations: the FSM state, the last
    accessor, whether a grid barrier came after the last access, and the
    block and warp barrier counters with the last accessor's clocks (each
    group shifted so its minimum is 0, which keeps every comparison the
    replay makes). Each returned batch holds one trace whose last access uses
    the entry. Stops early once every entry is found.
    """
    ops_a, who_a, locs_a = alphabet(grid, threads)
    rel_of = relation_table(grid)
    block_of, warp_of = grid.block_of(), grid.warp_of()
    n_blocks, n_warps = grid.blocks, grid.blocks * grid.warps
    table = FLAT_TRANSITIONS
    # config: (state, last, block counters + (last_bc,), warp counters + (last_wc,), gsince)
    start = (0, 0, (0,) * (n_blocks + 1), (0,) * (n_warps + 1), False)
    seen = {start}
    frontier: list[tuple[tuple, tuple[int, ...]]] = [(start, ())]
    found: dict[int, tuple[int, ...]] = {}
    for _ in range(max_len):
        nxt = []
        for (state, last, bcs, wcs, gsince), path in frontier:
            for e, (op, who) in enumerate(zip(ops_a.tolist(), who_a.tolist(), strict=True)):
                if op == BSYNC:
                    bcs2 = list(bcs)
                    bcs2[who] += 1
                    cfg = (state, last, _normalise(tuple(bcs2)), wcs, gsince)
                elif op == WSYNC:
                    wcs2 = list(wcs)
                    wcs2[who] += 1
                    cfg = (state, last, bcs, _normalise(tuple(wcs2)), gsince)
                elif op == GSYNC:
                    cfg = (state, last, bcs, wcs, True)
                else:
                    tbc, twc = bcs[block_of[who]], wcs[warp_of[who]]
                    sync = Sync.G if gsince else Sync.B if tbc > bcs[-1] else (
                        Sync.W if twc > wcs[-1] else Sync.U)  # fmt: skip
                    index = flat_index(state, op, sync, int(rel_of[who, last]))
                    found.setdefault(index, (*path, e))
                    cfg = (
                        int(table[index]),
                        who,
                        _normalise((*bcs[:-1], tbc)),
                        _normalise((*wcs[:-1], twc)),
                        False,
                    )
                if cfg not in seen:
                    seen.add(cfg)
                    nxt.append((cfg, (*path, e)))
        frontier = nxt
        if not frontier or len(found) == table.size:
            break
    out = {}
    for index, path in found.items():
        idx = np.array([path], np.int32)
        out[index] = Batch(grid, ops_a[idx], who_a[idx], locs_a[idx])
    return out
