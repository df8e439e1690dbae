"""Codes labelled `LivelockBug` get a launch limit derived from the codes beside
them that finished (hirace_py.indigo.runner.derived_limits), and the results
database counts every run's launches."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from hirace_py.cli import main
from hirace_py.indigo.pool import Task
from hirace_py.indigo.programs import Input
from hirace_py.indigo.results import SCHEMA, ResultsDB, RunResult, Setup
from hirace_py.indigo.runner import derived_limits
from hirace_py.indigo.suite import Code, labels_from_name

GRAPH = Path(__file__).resolve().parents[1] / "indigo" / "graphs" / "dag_8.egr"


def code(rel: str) -> Code:
    return Code(Path("/nowhere") / rel, rel, "sha-" + rel, labels_from_name(Path(rel).stem))


def row(rel: str, input_sha: str, launches: int, **flags: object) -> RunResult:
    labels = labels_from_name(Path(rel).stem)
    return RunResult(rel, "sha-" + rel, input_sha, input_sha, labels.racy, labels.bounds,
                     expected_hang=labels.hangs, launches=launches, **flags)  # type: ignore[arg-type]


def test_limit_is_one_more_than_the_most_a_finished_sibling_made() -> None:
    inputs = [Input(name, Path(name), name) for name in ("a", "b", "c")]
    task = Task(code("bfs/x_LivelockBug.cu"), (0, 1, 2))
    rows = [
        row("bfs/y.cu", "a", 7),
        row("bfs/z_RaceBug.cu", "a", 9),
        row("bfs/deep/w.cu", "a", 50),  # another directory
        row("cc/v.cu", "a", 60),  # another directory
        row("bfs/e.cu", "a", 70, error="did not build"),
        row("bfs/h.cu", "a", 80, hung=True),  # ended at a limit: not a finished run
        row("bfs/other_LivelockBug.cu", "a", 90),  # may not finish, even when it did
        row("bfs/y.cu", "b", 3),
        row("bfs/q.cu", "c", 0),  # no launch counted (a row from before counting)
    ]
    assert derived_limits(task, inputs, rows).launch_limits == (10, 4, None)
    only_b = derived_limits(Task(task.code, (1,)), inputs, rows)
    assert (only_b.launch_limit(1), Task(task.code, (1,)).launch_limit(1)) == (4, None)


LAUNCHES = """\
__global__ void k(int* a) {{ a[0] = {value}; }}
int main() {{
  int* a;
  cudaMalloc(&a, 4);
  for (int i = 0; {condition}; i++) {{
    k<<<1, {threads}>>>(a);
    cudaDeviceSynchronize();
  }}
  return 0;
}}
"""


def test_livelock_code_ends_one_launch_past_its_finished_sibling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A race-free code making 3 launches finishes; the livelocked racy code
    beside it is ended at its fifth launch (limit 3 + 1), judged (its race
    found) and counted as hung as labelled, not as an error."""
    root = tmp_path / "suite" / "algo"
    root.mkdir(parents=True)
    (root / "count.cu").write_text(LAUNCHES.format(value=1, condition="i < 3", threads=1))
    (root / "spin_raceBug_LivelockBug.cu").write_text(
        LAUNCHES.format(value="threadIdx.x", condition="true", threads=64))
    db = tmp_path / "r.sqlite"
    status = main(["check", str(root.parent), "--inputs", str(GRAPH), "--args", "",
                   "--timeout", "60", "--db", str(db), "--format", "json"])  # fmt: skip
    (s,) = json.loads(capsys.readouterr().out)
    assert status == 0
    assert (s["tests"], s["found"], s["false_alarms"], s["errors"], s["hung"]) == (2, 1, 0, 0, 1)
    with sqlite3.connect(db) as con:
        got = dict(con.execute("SELECT code, launches FROM runs").fetchall())
        (stderr,) = con.execute("SELECT stderr FROM runs WHERE hung=1").fetchone()
    # Four launches ran; the report also holds the fifth, at which the program
    # was ended before any of its threads ran.
    assert got == {"algo/count.cu": 3, "algo/spin_raceBug_LivelockBug.cu": 5}
    assert "made more than 4 launches (HIRACE_LAUNCH_LIMIT)" in stderr


def test_a_schema_3_database_gains_the_launch_count(tmp_path: Path) -> None:
    """A results database of the schema before launches were counted is
    upgraded in place; its rows read back with 0 launches."""
    path = tmp_path / "old.sqlite"
    setup = Setup(256, 1024, "cpu", "cfg")
    db = ResultsDB(path)
    db.add(row("a/x.cu", "i", 5), setup)
    db.close()
    with sqlite3.connect(path) as con:
        con.execute("ALTER TABLE runs DROP COLUMN launches")
        con.execute("UPDATE meta SET value='hirace-suite-results 3'")
    db = ResultsDB(path)
    (stored,) = db.results(setup).values()
    assert stored.launches == 0
    db.add(row("a/y.cu", "i", 6), setup)
    assert {r.code: r.launches for r in db.results(setup).values()} == {"a/x.cu": 0, "a/y.cu": 6}
    db.close()
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT value FROM meta").fetchone() == (SCHEMA,)
