"""The runtime's C++ step() agrees with hirace_py.replay on the table's traces.

tests/cxx/step_harness.cpp runs traces through `hirace::step` from the
rendered runtime header, built with HIRACE_CHECK_FAST (every fast-path
decision is also made by the full table lookup, and a mismatch traps), and
prints the accessed word's state after every event. The traces: a shortest
witness for every table entry, and a fixed random sample of the exhaustive
length-4 traces on a 2x2x2 grid. Each is fed twice: with one site per action
(so a repeated access by the same thread hits the unchanged-word fast path)
and with a single site for every access. Traces with a grid barrier are left
out: the device keeps no grid clock (a grid sync is taken as a block barrier,
docs/instrumentation.md), so it never looks up the table's sync G entries.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hirace_py import crosscheck, fsm
from hirace_py.instrument.runtime import include_dir
from hirace_py.replay import replay
from hirace_py.trace import BSYNC, GSYNC, Grid
from tests import step_harness

GRID = Grid(2, 2, 2)
SAMPLE = 40_000


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return step_harness.build(tmp_path_factory.mktemp("step"), Path(include_dir()), {})


def run_harness(exe: Path, batch: crosscheck.Batch, sites: np.ndarray) -> np.ndarray:
    """States after each event from the C++ step(), as replay() returns them."""
    return step_harness.run(exe, batch, sites, n_sites=len(fsm.Action))


def site_choices(batch: crosscheck.Batch) -> list[np.ndarray]:
    per_action = np.where(batch.ops < BSYNC, batch.ops, 0).astype(np.int64)
    return [per_action, np.zeros_like(per_action)]


def check(exe: Path, batch: crosscheck.Batch) -> None:
    want = replay(batch.ops, batch.who, batch.locs, batch.grid, batch.n_locs)
    for sites in site_choices(batch):
        got = run_harness(exe, batch, sites)
        bad = np.flatnonzero((got != want).any(axis=1))
        if bad.size:
            r = int(bad[0])
            pytest.fail(f"trace {r}: C++ {got[r].tolist()} replay {want[r].tolist()} "
                        f"(ops {batch.ops[r].tolist()}, who {batch.who[r].tolist()})")  # fmt: skip


def test_witness_traces_through_cxx_step(harness: Path) -> None:
    found = crosscheck.witnesses(GRID, crosscheck.relation_threads(GRID))
    device = {i: b for i, b in found.items() if not (b.ops == GSYNC).any()}
    sync_g = {i for i in range(fsm.FLAT_TRANSITIONS.size) if i // 4 % len(fsm.Sync) == fsm.Sync.G}
    assert set(device) == set(range(fsm.FLAT_TRANSITIONS.size)) - sync_g
    by_length: dict[int, list[crosscheck.Batch]] = {}
    for batch in device.values():
        by_length.setdefault(batch.ops.shape[1], []).append(batch)
    for batches in by_length.values():
        merged = crosscheck.Batch(
            GRID,
            np.concatenate([b.ops for b in batches]),
            np.concatenate([b.who for b in batches]),
            np.concatenate([b.locs for b in batches]),
        )
        check(harness, merged)


def test_exhaustive_sample_through_cxx_step(harness: Path) -> None:
    rng = np.random.default_rng(16)
    parts = []
    for batch in crosscheck.exhaustive(GRID, 4):
        keep = np.flatnonzero(~(batch.ops == GSYNC).any(axis=1))
        if keep.size == 0:
            continue
        rows = rng.choice(keep, SAMPLE // 54, replace=False)
        parts.append((batch.ops[rows], batch.who[rows], batch.locs[rows]))
    ops, who, locs = (np.concatenate(p) for p in zip(*parts, strict=True))
    sample = crosscheck.Batch(GRID, ops, who, locs)
    states = replay(ops, who, locs, GRID, 1)
    assert (states == fsm.RACE).any() and (states > fsm.RACE).any()
    check(harness, sample)
