"""The Murphi model's rendering, the CSV table reader, and counterexample translation.

None of these tests runs Rumur; tests/test_verify.py does.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from hirace_py import fsm, fsm_export
from hirace_py.errors import HiraceError
from hirace_py.murphi import counterexample, model, rumur
from hirace_py.murphi.table import load_csv
from hirace_py.trace import Grid

ROOT = Path(__file__).resolve().parents[1]
GRID = Grid(2, 2, 2)


def test_committed_model_is_a_fresh_rendering() -> None:
    committed = (ROOT / "murphi" / "fsm_model.m").read_text()
    assert committed == model.render(), (
        "murphi/fsm_model.m is stale: run `.venv/bin/python -m hirace_py.murphi.model "
        "> murphi/fsm_model.m`"
    )


def _entries_in(label: str) -> list[int]:
    """Inner indices that a group comment such as 'R U S,W; R B *; GA *' names."""
    out = []
    for part in label.split("; "):
        words = part.split()
        syncs = list(fsm.Sync) if words[1] == "*" else [fsm.Sync[words[1]]]
        rels = list(fsm.Rel) if words[-1] == "*" else [fsm.Rel[r] for r in words[-1].split(",")]
        out += [fsm.flat_index(0, fsm.Action[words[0]], y, r) for y in syncs for r in rels]
    return sorted(out)


def _table_in(text: str) -> np.ndarray:
    """Read the transition table back out of a rendered model's next_state function.

    Also checks that the comment above each case names exactly its entries.
    """
    table = np.full(fsm.FLAT_TRANSITIONS.shape, -1)
    state = None
    label = ""
    per_state = fsm.FLAT_TRANSITIONS.size // fsm.N_STATES
    for line in text.splitlines():
        if m := re.fullmatch(r"  case (\w+):", line):
            state = fsm.STATE_INDEX[m[1]]
        elif m := re.fullmatch(r"    -- (.*)", line):
            label = m[1]
        elif m := re.fullmatch(r"    case ([\d, ]+): return (\w+);", line):
            assert state is not None, line
            inner = [int(i) for i in m[1].split(", ")]
            assert sorted(inner) == _entries_in(label), (label, line)
            for i in inner:
                assert table[state * per_state + i] == -1, line
                table[state * per_state + i] = fsm.STATE_INDEX[m[2]]
    return table


def test_model_carries_the_table_entry_for_entry() -> None:
    # Every entry, the atomic loads' included (docs/fsm.md, "Murphi model").
    carried = _table_in(model.render())
    assert (carried == fsm.FLAT_TRANSITIONS).all()
    load_entry = fsm.flat_index(fsm.STATE_INDEX["X_Xw_L1"], fsm.Action.GL, fsm.Sync.U, fsm.Rel.B)
    for index in (123, load_entry):
        mutated = fsm.FLAT_TRANSITIONS.copy()
        mutated[index] = (mutated[index] + 1) % fsm.N_STATES
        assert (_table_in(model.render(GRID, mutated, "a test table")) == mutated).all()


def test_model_bounds_the_atomic_loads_it_explores() -> None:
    # Load rules are guarded by the count of loads so far (MAX_LOADS), the
    # other access rules are not; --loads 0 leaves the loads out.
    for n in (0, 2):
        text = model.render(GRID, max_loads=n)
        assert f"MAX_LOADS: {n};" in text
        guard = r'rule "(\w+)"\n    sync_to_try\([^)]*\)\n    & \(loads < MAX_LOADS'
        guarded = re.findall(guard, text)
        assert sorted(guarded) == ["BL", "GL"]


@pytest.mark.parametrize(
    ("sort", "warps", "lanes"),
    [(True, "0..WARPS - 1", "0..LANES - 1"), (False, "scalarset(WARPS)", "scalarset(LANES)")],
)
def test_model_names_threads_by_scalarsets_of_the_grid(sort: bool, warps: str, lanes: str) -> None:
    # Threads are (block, warp, lane). Blocks are a scalarset of the grid's
    # size, renamed by Rumur's symmetry reduction; warps and lanes are ranges
    # that the model renames itself after every rule (sort_threads), or, in
    # the rendering for counterexample traces, scalarsets too. Rules are per
    # event kind, their parameters name the thread, block or warp.
    grid = Grid(2, 3, 4)
    text = model.render(grid, sort_threads=sort)
    assert "block_t: scalarset(BLOCKS);" in text and "BLOCKS: 2;" in text
    assert f"wl_t: {warps};" in text and "WARPS: 3;" in text
    assert f"lane_t: {lanes};" in text and "LANES: 4;" in text
    assert ("sort_threads(rows, cols);" in text) == sort
    rules = re.findall(r'rule "([^"]+)"', text)
    assert sorted(rules) == sorted(
        [a.name for a in model.MODELLED_ACTIONS] + ["bsync", "wsync", "gsync", "kernel end"]
    )
    # No thread is named by number: every reference goes through a parameter.
    assert not re.search(r"\b(b|w|l|last(\.[bwl])?) *:?= *\d", text)


def test_csv_export_reads_back_as_the_real_table(tmp_path: Path) -> None:
    path = tmp_path / "fsm.csv"
    path.write_text(fsm_export.to_csv() + "\n")
    assert (load_csv(path) == fsm.FLAT_TRANSITIONS).all()


def _edit(lines: list[str], line: int, text: str | None) -> list[str]:
    """Replace (or, with None, drop) 1-based line `line`."""
    out = list(lines)
    if text is None:
        del out[line - 1]
    else:
        out[line - 1] = text
    return out


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda ls: _edit(ls, 1, "old,access,sync,relation,new"), r":1: header must be"),
        (lambda ls: _edit(ls, 5, "INIT,R,U"), r":5: expected 5 fields, got 3"),
        (lambda ls: _edit(ls, 7, "INIT,W,U,B,NOPE"), r":7: unknown state 'NOPE'"),
        (lambda ls: _edit(ls, 8, "INIT,X,U,G,RACE"), r":8: unknown access 'X'"),
        (lambda ls: _edit(ls, 9, "INIT,W,Q,S,RACE"), r":9: unknown sync 'Q'"),
        (lambda ls: [*ls, ls[3]], r":2594: duplicate row for INIT,R,U,B \(first on line 4\)"),
        (lambda ls: _edit(ls, 30, None), r"1 of 2592 rows missing, the first INIT,W,G,S"),
        (lambda ls: [], r":1: header must be old,access,sync,rel,new, got an empty file"),
    ],
)
def test_bad_csv_tables_are_one_line_errors_naming_the_line(
    tmp_path: Path, edit: object, message: str
) -> None:
    lines = fsm_export.to_csv().splitlines()
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(edit(lines)) + "\n")  # type: ignore[operator]
    with pytest.raises(HiraceError, match=message) as info:
        load_csv(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def _xml(message: str, transitions: list[str]) -> str:
    body = "".join(f"<transition>{t}</transition><state/>" for t in transitions)
    return (
        '<?xml version="1.0" encoding="utf-8"?><rumur_run>'
        f'<error includes_trace="true"><message>{message}</message>{body}</error>'
        '<summary states="53" rules_fired="97" errors="1" duration_seconds="0"/></rumur_run>'
    )


def _param(name: str, value: str) -> str:
    return f'<parameter name="{name}">{value}</parameter>'


def test_verifier_xml_is_parsed_into_steps() -> None:
    xml = _xml(
        "invariant &quot;completeness&quot; failed",
        [
            "Startstate &quot;launch&quot;"
            + _param("b", "block_t_1") + _param("w", "wl_t_0") + _param("l", "lane_t_1"),
            "Rule &quot;W&quot;"
            + _param("b", "block_t_0") + _param("w", "wl_t_1") + _param("l", "lane_t_0")
            + _param("y", "0"),
            "Rule &quot;bsync&quot;" + _param("b", "block_t_1"),
            "Rule &quot;wsync&quot;" + _param("b", "block_t_1") + _param("w", "wl_t_0"),
            "Rule &quot;gsync&quot;",
            "Rule &quot;R&quot;"
            + _param("b", "block_t_1") + _param("w", "wl_t_0") + _param("l", "lane_t_0")
            + _param("y", "2"),
        ],
    )  # fmt: skip
    outcome = rumur._parse(xml, "", 0.5, 2.0, "Rumur version test")
    assert (outcome.states, outcome.rules_fired, outcome.failed) == (53, 97, "completeness")
    assert outcome.steps == (
        rumur.Step("launch 1.0.1", None),
        rumur.Step("W 0.1.0", 0),
        rumur.Step("bsync 1", None),
        rumur.Step("wsync 1.0", None),
        rumur.Step("gsync", None),
        rumur.Step("R 1.0.0", 2),
    )


def test_verifier_errors_other_than_the_invariants_are_tool_errors() -> None:
    with pytest.raises(HiraceError, match="error in the model: next_state: bad state"):
        rumur._parse(_xml("next_state: bad state", []), "", 0, 0, "")
    with pytest.raises(HiraceError, match="not Rumur's XML: Segmentation fault"):
        rumur._parse("", "Segmentation fault\n", 0, 0, "")


def _steps(*events: tuple[str, int | None]) -> tuple[rumur.Step, ...]:
    return tuple(rumur.Step(rule, sync) for rule, sync in events)


def test_counterexample_gets_leading_barriers_for_cross_block_syncs() -> None:
    # A mutated table that forgets the race when a write from another block
    # comes with sync B: the model may pick sync B across blocks, the device
    # gives it only when the second block has passed more barriers.
    table = fsm.FLAT_TRANSITIONS.copy()
    x = fsm.STATE_INDEX["X_Xw_X1"]
    table[fsm.flat_index(x, fsm.Action.W, fsm.Sync.B, fsm.Rel.G)] = x
    steps = _steps(("W 0.0.0", 0), ("W 1.0.0", 2))
    cx = counterexample.translate(steps, GRID, table)
    assert cx.text == "bsync 1; W 0.0.0; W 1.0.0" and cx.padding == 1
    conf = counterexample.confirm(cx, table)
    assert conf.first_bad == 2 and conf.rows[2] == ("W 1.0.0", "X_Xw_X1", "race")
    # With the real table the sync does not matter, so no barrier is added,
    # and the replay agrees with the oracle.
    real = counterexample.translate(steps, GRID, fsm.FLAT_TRANSITIONS)
    assert real.text == "W 0.0.0; W 1.0.0" and real.padding == 0
    assert counterexample.confirm(real, fsm.FLAT_TRANSITIONS).first_bad == -1


def test_counterexample_without_realisable_clocks_is_left_unpadded() -> None:
    # Sync B from block 1 needs block 1 ahead of block 0, then sync B from
    # block 0 with no barrier in between needs block 0 ahead of block 1.
    table = fsm.FLAT_TRANSITIONS.copy()
    for s in range(fsm.N_STATES):
        for a in fsm.Action:
            table[fsm.flat_index(s, a, fsm.Sync.B, fsm.Rel.G)] = fsm.INIT
    steps = _steps(("R 0.0.0", 0), ("R 1.0.0", 2), ("R 0.0.0", 2))
    cx = counterexample.translate(steps, GRID, table)
    assert cx.padding is None and cx.text == "R 0.0.0; R 1.0.0; R 0.0.0"


def test_counterexample_starts_after_the_last_kernel_end() -> None:
    steps = _steps(("W 0.0.0", 0), ("kernel end 0.0.0", None), ("R 0.1.0", 0))
    cx = counterexample.translate(steps, GRID, fsm.FLAT_TRANSITIONS)
    assert cx.text == "R 0.1.0"


def test_counterexample_renames_the_launch_thread_to_thread_zero() -> None:
    # The model's launch may name any thread as the zeroed word's last
    # accessor; the device names 0.0.0, so each coordinate of the launch
    # thread is swapped with 0 throughout (a renaming of blocks, warps, lanes).
    steps = _steps(
        ("launch 1.0.1", None), ("W 1.0.1", 0), ("W 0.1.0", 0), ("wsync 1.1", None),
        ("bsync 0", None), ("R 1.1.1", 0),
    )  # fmt: skip
    cx = counterexample.translate(steps, GRID, fsm.FLAT_TRANSITIONS)
    assert cx.text == "W 0.0.0; W 1.1.1; wsync 0.1; bsync 1; R 0.1.0"


def test_real_table_ignores_clock_comparisons_across_blocks_and_warps() -> None:
    # murphi/README.md relies on this: the model lets those comparisons go
    # either way, and the real table gives the same next state for each.
    t = fsm.TRANSITIONS
    g, b = fsm.Rel.G, fsm.Rel.B
    assert (t[:, :, fsm.Sync.U, g] == t[:, :, fsm.Sync.W, g]).all()
    assert (t[:, :, fsm.Sync.U, g] == t[:, :, fsm.Sync.B, g]).all()
    assert (t[:, :, fsm.Sync.U, b] == t[:, :, fsm.Sync.W, b]).all()
