"""Whole programs under the values engine, and under both engines (docs/engines.md).

tests/programs/engines/engines.cu (its FSM-engine expectations are in
engines.toml, checked by tests/test_programs.py) has six kernels: races both
engines find, and races only the FSM engine finds for each known reason. It is
built with `hirace build --cpu --engine values` and run as `hirace run
--engine both`; a few mini-suite codes go through `hirace check SUITE --engine
both`. Each time the two engines are compared: every race the values engine
reports is one the FSM engine reports, and every race the values engine
misses is in the class the kernel was written for.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from hirace_py import dump
from hirace_py.cli import main
from hirace_py.program import BuildOptions, build
from hirace_py.report import to_json, to_sarif, to_text

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = Path(__file__).parent / "programs" / "engines"
SUITE = ROOT / "indigo" / "minisuite"
GRAPH = ROOT / "indigo" / "graphs" / "dag_60.egr"
STDOUT = "reverse: a[0] 126 a[64] 254 sum 16256\ncount: total 63; same: 7\n"

Key = tuple[tuple[int, int], str, str]
BOTH: set[Key] = {((20, 21), "read-write", "global"), ((38, 38), "write-write", "global")}
"""Races of engines.cu both engines find: between warps, between blocks."""
FSM_ONLY: dict[Key, str] = {
    ((27, 27), "write-write", "global"): "same-warp",
    ((32, 33), "atomic-plain", "global"): "atomics",
    ((44, 44), "write-write", "global"): "value",
}
"""Races of engines.cu only the FSM engine finds, with the class that explains each."""


def keys(races: list[dict], engine: str) -> set[Key]:
    return {(tuple(sorted((r["first"]["site"]["line"], r["second"]["site"]["line"]))),
             r["kind"], r["space"]) for r in races if r["engine"] == engine}  # type: ignore[misc]


@pytest.fixture
def in_program_dir() -> Iterator[None]:
    old = os.getcwd()
    os.chdir(PROGRAM)
    try:
        yield
    finally:
        os.chdir(old)


def test_a_program_built_for_the_values_engine_reports_its_races(
    tmp_path: Path, in_program_dir: None
) -> None:
    built = build(BuildOptions(sources=(Path("engines.cu"),), output=tmp_path / "engines",
                               cpu=True, engine="values"))  # fmt: skip
    run = subprocess.run([str(built.executable)], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "HIRACE_DUMP": str(tmp_path / "dump.json")},
                         check=False)  # fmt: skip
    # The race-free kernel and the atomic count give what the FSM build gives.
    assert (run.returncode, run.stdout) == (0, STDOUT), run.stderr
    report = dump.load(tmp_path / "dump.json")
    doc = json.loads(to_json(report))
    jsonschema.validate(doc, json.loads((ROOT / "docs" / "report.schema.json").read_text()))
    races = [r for launch in doc["launches"] for r in launch["races"]]
    assert {r["engine"] for r in races} == {"values"}
    assert keys(races, "values") == BOTH
    by_kernel = {launch["kernel"]: launch for launch in doc["launches"]}
    assert [n["code"] for n in by_kernel["count"]["notices"]] == ["values-atomics"]
    assert by_kernel["count"]["counters"]["atomic_accesses"] == 63
    assert not by_kernel["reverse"]["races"] and by_kernel["reverse"]["counters"]["intervals"] == 4
    # Every format says which engine found each race.
    assert "Race (read-write) [values engine] on global memory: 'x'" in to_text(report)
    sarif = json.loads(to_sarif(report))
    messages = [r["message"]["text"] for r in sarif["runs"][0]["results"]]
    assert messages and all("values engine" in m for m in messages), messages


def test_both_engines_on_a_program_agree_but_for_explained_misses(
    tmp_path: Path, in_program_dir: None, capfd: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.json"
    status = main(["run", "engines.cu", "--engine", "both", "--no-cache", "--format", "json",
                   "-o", str(out)])  # fmt: skip
    assert status == 1
    assert capfd.readouterr().out == STDOUT * 2  # the FSM program's run, then the values one's
    doc = json.loads(out.read_text())
    # The runs launched the same kernels: one merged launch each.
    assert [x["kernel"] for x in doc["launches"]] == ["reverse", "shift", "lanes", "count",
                                                     "blocks", "same"]  # fmt: skip
    races = [r for launch in doc["launches"] for r in launch["races"]]
    assert keys(races, "fsm") == BOTH | set(FSM_ONLY)
    assert keys(races, "values") == BOTH
    disagreements = {n["code"]: n["message"] for n in doc["notices"]
                     if n["code"].startswith("engines-")}  # fmt: skip
    assert set(disagreements) == {f"engines-{c}" for c in FSM_ONLY.values()}
    for (lines, kind, _), reason in FSM_ONLY.items():
        message = disagreements[f"engines-{reason}"]
        assert f"{kind} race on global 'x' at lines {lines[0]} and {lines[1]}" in message \
            or f"{kind} race on global 'total' at lines {lines[0]} and {lines[1]}" in message
        assert "found by the fsm engine only" in message


NAMED = """\
#include <cstdio>
__global__ void one(int* p) { p[threadIdx.x] = 1; }
int main(int argc, char** argv) {
  int* p;
  cudaMallocManaged(&p, 32 * sizeof(int));
  one<<<1, 32>>>(p);
  cudaDeviceSynchronize();
  printf("%s %d\\n", argv[0], p[31]);
  cudaFree(p);
  return 0;
}
"""


def test_both_engines_run_the_program_under_one_name(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A program that prints argv[0] prints the same under both engines (the
    values build is OUT.values, run under OUT's name)."""
    source = tmp_path / "named.cu"
    source.write_text(NAMED)
    assert main(["run", str(source), "--engine", "both", "--no-cache"]) == 0
    first, second = capfd.readouterr().out.splitlines()
    assert first == second and first.endswith("named 1"), (first, second)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["build", "engines.cu", "-o", "x", "--engine", "values"], "runs on the CPU backend only"),
        (["build", "engines.cu", "-o", "x", "--cpu", "--engine", "both", "--no-instrument"],
         "--engine both checks races"),
        (["run", "engines.cu", "--gpu", "--engine", "values"], "runs on the CPU backend only"),
        (["run", "engines.cu", "--engine", "values", "--profile"], "fsm engine only"),
    ],
)
def test_where_the_values_engine_cannot_run_is_a_one_line_error(
    argv: list[str], message: str, in_program_dir: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_build_both_writes_a_program_per_engine(
    tmp_path: Path, in_program_dir: None, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "engines"
    assert main(["build", "engines.cu", "--cpu", "--engine", "both", "-o", str(output)]) == 0
    assert f"{output}.values: the values engine" in capsys.readouterr().err
    engines = []
    for program in (output, Path(f"{output}.values")):
        path = tmp_path / f"{program.name}.json"
        subprocess.run([str(program)], capture_output=True, timeout=300, check=True,
                       env={**os.environ, "HIRACE_DUMP": str(path)})  # fmt: skip
        engines.append(json.loads(path.read_text())["engine"])
    assert engines == ["fsm", "values"]


# The mini-suite codes run under both engines: a race-free one, one whose
# race the values engine finds too, and ones it misses for a known reason.
CODES = ("edge", "edge_guardBug", "degree_raceBug", "degree_syncBug")


def test_minisuite_codes_under_both_engines(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    for name in CODES:  # links: the codes build (and are cached) as the suite's own
        (suite / f"{name}.cu").symlink_to(SUITE / f"{name}.cu")
    db = tmp_path / "results.sqlite"
    main(["check", str(suite), "--inputs", str(GRAPH), "--engine", "both", "--db", str(db),
          "-o", str(tmp_path / "summary.txt")])  # fmt: skip
    query = "SELECT code, races, notices, error FROM runs"
    rows = {code: (json.loads(races), json.loads(notices), error)
            for code, races, notices, error in sqlite3.connect(db).execute(query)}  # fmt: skip
    assert set(rows) == {f"{c}.cu" for c in CODES}
    for code, (races, notices, error) in rows.items():
        assert not error, (code, error)
        fsm, values = keys(races, "fsm"), keys(races, "values")
        classes = [n["code"] for n in notices if n["code"].startswith("engines-")]
        assert "engines-unexplained" not in classes, code
        # Every values race is an FSM race, or an FSM pairing difference.
        assert len(values - fsm) == classes.count("engines-fsm-pairing"), code
        assert len(fsm - values) == len(classes) - classes.count("engines-fsm-pairing"), code
    assert rows["edge.cu"][0] == []
    assert keys(rows["edge_guardBug.cu"][0], "values") == keys(rows["edge_guardBug.cu"][0], "fsm")
    assert not keys(rows["degree_raceBug.cu"][0], "values")


def test_out_of_bounds_accesses_under_the_values_engine(tmp_path: Path) -> None:
    """tests/programs/oob reads and writes one element past its array. With
    HIRACE_BOUNDS=continue (what suites run with) the values engine does not
    make those accesses and counts them, as the FSM engine does; without it the
    CPU backend's guard page stops the launch, as in a plain build."""
    source = PROGRAM.parent / "oob" / "oob.cu"
    built = build(BuildOptions(sources=(source,), output=tmp_path / "oob", cpu=True,
                               engine="values"))  # fmt: skip
    outputs = []
    for bounds in ("continue", ""):
        path = tmp_path / f"dump{bounds}.json"
        run = subprocess.run([str(built.executable)], capture_output=True, text=True,
                             timeout=300, check=False,
                             env={**os.environ, "HIRACE_DUMP": str(path),
                                  "HIRACE_BOUNDS": bounds})  # fmt: skip
        counters = dump.load(path).launches[1].counters
        outputs.append((run.returncode, run.stdout.splitlines()[-1], counters["out_of_bounds"]))
    assert outputs == [(0, "no error", 2),
                       (1, "error: an illegal memory access was encountered", 0)]
