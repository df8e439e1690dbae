"""`hirace verify`: Rumur checks the real table, and catches behaviour-changing mutations.

Only the check of the real table runs Rumur in the default suite; the
mutation and counterexample runs are marked slow (`pytest -m slow`).
These tests run Rumur and a C compiler (scripts/setup.sh installs both); they
fail, rather than skip, without them, because CI must run the check.

Mutations are single table entries, chosen here with the witness traces of
`hirace_py.crosscheck` (every entry is used by its witness, so changing an
entry changes behaviour on it). Each must make Rumur report a counterexample
whose trace, replayed through the mutated table with `hirace_py.replay` and
judged by `hirace_py.oracle`, shows the table wrong. The 2x2x2 mutants are
load-free and checked by a model without loads (`--loads 0`); mutants of
atomic-load entries are checked on the small grids (fast): a lost race
there must fail `completeness`. (An invented race after a load cannot be
caught: with loads the table is sound, not exact, and the model excuses
every false alarm after a load, docs/fsm.md, "Murphi model".)
"""

from __future__ import annotations

import csv
import functools
import io
from pathlib import Path

import numpy as np
import pytest

from hirace_py import crosscheck, fsm, fsm_export
from hirace_py.cli import main
from hirace_py.murphi import check, counterexample, model
from hirace_py.trace import ACTION_BITS, BSYNC, Grid

GRID = Grid(2, 2, 2)
TIMEOUT = 600.0


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@functools.cache
def witnesses() -> dict[int, crosscheck.Batch]:
    return crosscheck.witnesses(GRID, crosscheck.relation_threads(GRID))


def _load_free(ops: np.ndarray) -> np.ndarray:
    """Which events are barriers or accesses other than atomic loads."""
    action = ops & ((1 << ACTION_BITS) - 1)
    return (ops >= BSYNC) | ~np.isin(action, [int(a) for a in fsm.LOADS])


def _with_continuations(batch: crosscheck.Batch, length: int) -> crosscheck.Batch:
    """The witness followed by every event sequence of exactly `length` events of the model."""
    ops_a, who_a, locs_a = crosscheck.alphabet(GRID, crosscheck.relation_threads(GRID))
    keep = _load_free(ops_a)
    ops_a, who_a, locs_a = ops_a[keep], who_a[keep], locs_a[keep]
    tails = np.array(np.meshgrid(*[np.arange(len(ops_a))] * length)).reshape(length, -1).T
    n = len(tails)
    ops = np.concatenate([np.repeat(batch.ops, n, axis=0), ops_a[tails]], axis=1)
    who = np.concatenate([np.repeat(batch.who, n, axis=0), who_a[tails]], axis=1)
    locs = np.concatenate([np.repeat(batch.locs, n, axis=0), locs_a[tails]], axis=1)
    return crosscheck.Batch(GRID, ops, who, locs)


def _mutation(kind: str, seed: int = 0) -> tuple[int, int]:
    """(flat index, new state) of a single-entry mutation of the given kind.

    "race-lost": a RACE entry with relation W becomes a non-race state;
    "race-invented": a non-race entry with relation S becomes RACE (for these
    two the device compares clocks of one warp, which the model tracks
    exactly); "state-swapped": any non-race entry becomes another non-race
    state, chosen so that a continuation of the entry's witness (two more
    events) gets a wrong verdict; "cross-block": a RACE entry with sync B and
    relation G (clocks of two blocks, which the model lets compare either
    way) becomes a non-race state. Only entries of the actions the model
    has, with witnesses and continuations of those actions, are mutated.
    """
    rng = np.random.default_rng(seed)
    table = fsm.FLAT_TRANSITIONS
    entries = rng.permutation(table.size)
    for index in entries.tolist():
        action = (index // (len(fsm.Sync) * len(fsm.Rel))) % len(fsm.Action)
        if action in fsm.LOADS or not _load_free(witnesses()[index].ops).all():
            continue  # checked without loads: see _load_mutation
        current = int(table[index])
        sync, rel = (index // len(fsm.Rel)) % len(fsm.Sync), index % len(fsm.Rel)
        sound_only = index in fsm.SOUND_ONLY  # RACE there is not always a race
        if kind == "race-lost" and current == fsm.RACE and rel == fsm.Rel.W and not sound_only:
            return index, int(rng.integers(2, fsm.N_STATES))
        if kind == "race-invented" and current != fsm.RACE and rel == fsm.Rel.S:
            return index, fsm.RACE
        if kind == "cross-block" and current == fsm.RACE and (sync, rel) == (fsm.Sync.B, fsm.Rel.G):
            return index, int(rng.integers(2, fsm.N_STATES))
        if kind == "state-swapped" and current != fsm.RACE:
            batch = _with_continuations(witnesses()[index], 2)
            verdicts = crosscheck.oracle_verdicts(batch)
            for other in rng.permutation(np.arange(2, fsm.N_STATES)).tolist():
                if other == current:
                    continue
                mutated = table.copy()
                mutated[index] = other
                if crosscheck.compare(batch, mutated, verdicts).disagreements:
                    return index, other
    raise AssertionError(f"no {kind} mutation found")


def _mutated(index: int, state: int) -> np.ndarray:
    table = fsm.FLAT_TRANSITIONS.copy()
    table[index] = state
    return table


SMALL_CHECKS = [
    ("2x1x2", "2"),
    ("2x2x1", "1"),
    pytest.param("1x2x2", "2", marks=pytest.mark.slow),
    pytest.param("2x2x1", "2", marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("grid", "loads"), SMALL_CHECKS)
def test_verify_passes_on_the_real_table(
    capsys: pytest.CaptureFixture[str], grid: str, loads: str
) -> None:
    """In CI, one small exploration of each event class the model has: two
    atomic loads (a chain break needs two), 2-lane warps and their barriers,
    block barriers, grid barriers, other blocks (2x1x2); and 1-lane warps,
    whose warp barriers are the 1-lane lane groups of a file that syncs only
    single lanes, with other warps of a block (2x2x1). Slow: the other warp
    with 2-lane warps (1x2x2), and 1-lane warps with two loads; the 2x2x2
    grid, with all relations at once, is the slow test below (docs/fsm.md,
    "Murphi model")."""
    code, out, err = run(capsys, "verify", "--grid", grid, "--loads", loads)
    assert code == 0, out + err
    assert f"grid {grid}" in out and f"up to {loads} atomic loads" in out
    assert "verdict: verified" in out and "counterexample" not in out
    states = int(out.split("rumur: ")[1].split(" states explored")[0])
    assert states > 1000


@pytest.mark.slow
def test_verify_passes_on_the_real_table_2x2x2(capsys: pytest.CaptureFixture[str]) -> None:
    """Without atomic loads (the loads are checked on the small grids above).
    About 18 min of CPU: on the loaded 2-core development machine it verified
    1,020,523 states in 4,308 s wall (docs/fsm.md, "Murphi model")."""
    code, out, err = run(capsys, "verify", "--grid", "2x2x2", "--loads", "0", "--timeout", "7200")
    assert code == 0, out + err
    assert "grid 2x2x2" in out and "verdict: verified" in out


def test_bad_load_count_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        run(capsys, "verify", "--loads", "-1")
    _, err = capsys.readouterr()
    assert exc.value.code == 2 and err.strip().count("\n") == 0
    assert "--loads: '-1': expected a count of 0 or more" in err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "invariant"),
    [
        ("race-lost", "completeness"),
        ("race-invented", "soundness"),
        ("state-swapped", None),
        ("cross-block", "completeness"),
    ],
)
def test_mutated_table_fails_with_a_confirmed_counterexample(
    tmp_path: Path, kind: str, invariant: str | None
) -> None:
    index, state = _mutation(kind)
    table = _mutated(index, state)
    outcome = check.check_table(GRID, table, "a mutated table", 0, tmp_path, TIMEOUT)
    assert outcome.failed is not None
    if invariant is not None:
        assert outcome.failed == invariant
    cx = counterexample.translate(outcome.steps, GRID, table)
    assert cx.padding is not None
    # Independent of counterexample.confirm: replay and oracle directly.
    trace = cx.trace
    batch = crosscheck.Batch(GRID, trace.ops[None, :], trace.who[None, :], trace.locs[None, :])
    assert crosscheck.compare(batch, table).disagreements > 0
    assert crosscheck.compare(batch, fsm.FLAT_TRANSITIONS).disagreements == 0
    # The replay follows the model's run: it goes wrong exactly where Rumur
    # stopped, at the last access (barriers change neither FSM nor history).
    conf = counterexample.confirm(cx, table)
    last_access = max(i for i in range(len(trace)) if trace.ops[i] < BSYNC)
    assert conf.first_bad == last_access


SMALL_GRIDS = [Grid(2, 1, 2), Grid(1, 2, 2)]


@functools.cache
def small_witnesses(grid: Grid) -> dict[int, crosscheck.Batch]:
    return crosscheck.witnesses(grid)


def _load_mutation(grid: Grid, seed: int) -> tuple[int, int]:
    """(flat index, new state): a RACE entry of an atomic load (BL, GL) from
    a state other than RACE that is not sound-only, whose witness on `grid`
    races by the oracle at that entry and has at most
    `model.DEFAULT_MAX_LOADS` loads, made a random non-race state: the
    mutated table loses that race."""
    rng = np.random.default_rng(seed)
    table = fsm.FLAT_TRANSITIONS
    found = small_witnesses(grid)
    for index in rng.permutation(table.size).tolist():
        action = (index // (len(fsm.Sync) * len(fsm.Rel))) % len(fsm.Action)
        state = index // (len(fsm.Action) * len(fsm.Sync) * len(fsm.Rel))
        if action not in fsm.LOADS or state == fsm.RACE or table[index] != fsm.RACE:
            continue
        if index in fsm.SOUND_ONLY:
            continue
        if index not in found:
            continue  # not reachable on this grid
        batch = found[index]
        loads = ~_load_free(batch.ops) & (batch.ops < BSYNC)
        if loads.sum() > model.DEFAULT_MAX_LOADS:
            continue
        if not crosscheck.oracle_verdicts(batch)[0, -1]:
            continue  # a false alarm of the table there: losing it loses no race
        return index, int(rng.integers(2, fsm.N_STATES))
    raise AssertionError(f"no load mutation found on {grid}")


def _check_load_mutant(tmp_path: Path, grid: Grid, seed: int) -> None:
    index, state = _load_mutation(grid, seed)
    table = _mutated(index, state)
    outcome = check.check_table(
        grid, table, "a mutated table", model.DEFAULT_MAX_LOADS, tmp_path, TIMEOUT
    )
    assert outcome.failed == "completeness"
    cx = counterexample.translate(outcome.steps, grid, table)
    trace = cx.trace
    assert any(trace.format_event(i).split()[0] in ("BL", "GL") for i in range(len(trace)))
    batch = crosscheck.Batch(grid, trace.ops[None, :], trace.who[None, :], trace.locs[None, :])
    mutated = crosscheck.compare(batch, table)
    assert mutated.missed > 0
    assert crosscheck.compare(batch, fsm.FLAT_TRANSITIONS).disagreements == 0
    assert counterexample.confirm(cx, table).first_bad >= 0


@pytest.mark.parametrize("grid", SMALL_GRIDS, ids=str)
def test_mutated_load_entry_fails_with_a_confirmed_counterexample(
    tmp_path: Path, grid: Grid
) -> None:
    """A lost race on an atomic load's entry is a completeness counterexample
    that Python confirms (the model has the loads since issue 14); the
    verdict comes from the model that renames warps and lanes, the trace from
    the one that does not (hirace_py.murphi.check)."""
    _check_load_mutant(tmp_path, grid, 0)


@pytest.mark.slow
@pytest.mark.parametrize("grid", SMALL_GRIDS, ids=str)
@pytest.mark.parametrize("seed", range(1, 10))
def test_more_mutated_load_entries_fail(tmp_path: Path, grid: Grid, seed: int) -> None:
    _check_load_mutant(tmp_path, grid, seed)


def _csv(table: np.ndarray) -> str:
    rows = list(csv.reader(io.StringIO(fsm_export.to_csv())))
    for i, row in enumerate(rows[1:]):
        row[4] = fsm.STATES[int(table[i])]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


@pytest.mark.slow
def test_cli_reports_the_counterexample_for_a_table_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index, state = _mutation("race-lost", seed=1)
    path = tmp_path / "mutated.csv"
    path.write_text(_csv(_mutated(index, state)))
    keep = str(tmp_path / "keep")
    code, out, _ = run(capsys, "verify", "--grid", "2x2x2", "--table", str(path), "--keep", keep)
    assert code == 1, out
    assert 'verdict: FAILED: invariant "completeness"' in out
    line = next(ln for ln in out.splitlines() if ln.startswith("counterexample: "))
    trace = line.removeprefix("counterexample: ")
    events = ("R", "W", "BA", "GA", "BL", "GL", "bsync", "wsync")
    assert all(part.split()[0] in events for part in trace.split("; "))
    assert "python check: confirmed" in out
    assert (tmp_path / "keep" / "fsm_model.m").is_file()
    assert (tmp_path / "keep" / "verifier.xml").is_file()
    # The same trace through `hirace fsm --trace` with the real table shows the race it missed.
    code, out, _ = run(capsys, "fsm", "--trace", trace, "--grid", "2x2x2")
    assert code == 0 and "verdict: race" in out


def test_default_grids_are_checked_in_turn_up_to_a_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two reads of one warp made a race: every grid with 2-lane warps has
    # that run, so the first default grid (2x1x2) fails and the rest are not
    # checked; --keep keeps each grid's files under its name.
    path = tmp_path / "invented.csv"
    index = fsm.flat_index(fsm.STATE_INDEX["R_Rw_R1"], fsm.Action.R, fsm.Sync.U, fsm.Rel.W)
    path.write_text(_csv(_mutated(index, fsm.RACE)))
    assert [str(g) for g in model.DEFAULT_GRIDS] == ["2x1x2", "1x2x2", "2x2x1"]
    keep = tmp_path / "keep"
    code, out, _ = run(capsys, "verify", "--table", str(path), "--keep", str(keep))
    assert code == 1, out
    assert out.startswith("model: grid 2x1x2 ") and out.count("model: grid") == 1
    assert 'verdict: FAILED: invariant "soundness"' in out
    assert "counterexample: R 0.0.0; R 0.0.1" in out or "counterexample: R 0.0.1; R 0.0.0" in out
    assert "python check: confirmed" in out
    assert (keep / "2x1x2" / "fsm_model.m").is_file()
    assert (keep / "2x1x2" / check.TRACE_DIR / "verifier.xml").is_file()


def test_missing_rumur_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    code, _, err = run(capsys, "verify")
    assert code == 3
    assert err.strip().count("\n") == 0 and "rumur not found" in err and "scripts/setup.sh" in err


@pytest.mark.slow
def test_compiler_failure_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CC", "false")
    code, _, err = run(capsys, "verify")
    assert code == 3
    assert err.strip().count("\n") == 0 and "false failed on the verifier" in err


def test_timeout_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "verify", "--timeout", "0.01")
    assert code == 3
    assert err.strip().count("\n") == 0 and "did not finish within --timeout 0.01 s" in err


def test_bad_table_file_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("old,access,sync,rel,new\nINIT,R,U,S\n")
    code, _, err = run(capsys, "verify", "--table", str(path))
    assert code == 2 and f"{path}:2: expected 5 fields, got 4" in err
