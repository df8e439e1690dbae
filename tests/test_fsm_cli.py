"""`hirace fsm`: exports, trace stepping, and one-line errors with exit status 2."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess

import pytest

from hirace_py import fsm
from hirace_py.cli import main
from hirace_py.crosscheck import Batch, compare, exhaustive
from hirace_py.trace import Grid


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_csv_is_the_table_and_agrees_with_the_oracle(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fsm", "--format", "csv")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["old", "access", "sync", "rel", "new"]
    assert len(rows) == 1 + fsm.TRANSITIONS.size
    names = {r[0] for r in rows[1:]}
    assert {"INIT", "RACE"} <= names and len(names) == fsm.N_STATES
    # Rebuild a table from the CSV alone and run the exhaustive comparison with it.
    index = {n: i for i, n in enumerate(dict.fromkeys(r[0] for r in rows[1:]))}
    table = fsm.FLAT_TRANSITIONS.copy()
    for old, a, y, r, new in rows[1:]:
        flat = fsm.flat_index(index[old], fsm.Action[a], fsm.Sync[y], fsm.Rel[r])
        table[flat] = index[new]
    for batch in exhaustive(Grid(2, 2, 2), 3):
        assert (
            compare(Batch(batch.grid, batch.ops, batch.who, batch.locs), table).disagreements == 0
        )


def test_json_lists_states_with_meanings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fsm", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["initial"] == "INIT" and doc["race"] == "RACE"
    assert [s["name"] for s in doc["states"]] == list(fsm.STATES)
    assert len(doc["transitions"]) == fsm.TRANSITIONS.size


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz not installed")
def test_dot_renders_with_graphviz(capsys: pytest.CaptureFixture[str]) -> None:
    for flags in ((), ("--race-edges",)):
        code, out, _ = run(capsys, "fsm", "--format", "dot", *flags)
        assert code == 0
        for name in fsm.STATES:
            assert f'"{name}"' in out
        done = subprocess.run(["dot", "-Tsvg"], input=out, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert ("style=dashed" in out) == bool(flags)


def test_text_single_state(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fsm", "--state", "R_Rm")
    assert code == 0 and "R_Rm (" in out and "X_Xw_X1" in out
    assert "MB_R (" not in out


def test_trace_steps_show_states_and_both_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fsm", "--trace", "W 0.0.0; wsync 0.0; BA 0.0.1; BA 0.0.2; R 0.0.1")
    assert code == 0
    lines = out.splitlines()
    assert "X_Xw_A " in lines[-3]
    assert "RACE" in lines[-2] and "race with #3" in lines[-2]
    assert lines[-1] == "verdict: race on @0"


def test_trace_with_explicit_grid_and_locations(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "fsm", "--grid", "2x2x2", "--trace", "W 0.0.0 @a\nbsync 0\nR 0.1.1 @a # ok"
    )
    assert code == 0 and out.splitlines()[-1] == "verdict: no race"


def test_trace_with_lane_groups(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/semantics.md 1.3: with 2-lane groups the 0x3 barrier is the table's
    warp barrier (no race with lane 1, the race with lane 2 still found);
    without groups it is not modelled and the read by lane 1 is reported."""
    trace = "W 0.0.0; wsync 0.0 0x3; R 0.0.1; R 0.0.2"
    code, out, _ = run(capsys, "fsm", "--grid", "1x1x4", "--group", "2", "--trace", trace)
    lines = out.splitlines()
    assert code == 0 and "not modelled" not in out
    assert lines[4].split()[-2:] == ["-", "-"]
    assert "RACE" in lines[5] and lines[5].endswith("race with #0")
    code, out, _ = run(capsys, "fsm", "--grid", "1x1x4", "--trace", trace)
    lines = out.splitlines()
    assert "not modelled" in lines[3] and "RACE" in lines[4]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["fsm", "--state", "NOPE"], "unknown FSM state 'NOPE'"),
        (["fsm", "--group", "3", "--trace", "R 0.0.0"], "--group 3"),
        (["fsm", "--trace", "X 1"], "event 1 'X 1'"),
        (["fsm", "--trace", "R 0.0.0; W 0.0"], "event 2"),
        (["fsm", "--trace", ""], "empty trace"),
        (["fsm", "--grid", "2x2", "--trace", "R 0.0.0"], "--grid '2x2'"),
        (["fsm", "--grid", "1x1x1", "--trace", "R 0.0.1"], "lane 1 outside grid 1x1x1"),
        (["fsm", "--format", "yaml"], "invalid choice"),
        (["fsm", "--state", "RACE", "--format", "csv"], "--format text only"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    _, err = capsys.readouterr()
    assert code == 2
    assert needle in err
    assert len(err.strip().splitlines()) == 1


def test_docs_state_table_matches_the_code() -> None:
    from pathlib import Path

    from hirace_py.fsm_export import to_markdown

    doc = (Path(__file__).parent.parent / "docs" / "fsm.md").read_text()
    start = doc.index("-->\n", doc.index("<!-- states:")) + 4
    assert doc[start : doc.index("<!-- /states -->")] == to_markdown()
