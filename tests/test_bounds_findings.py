"""Out-of-bounds accesses through instrumented accesses are findings.

With HIRACE_BOUNDS=continue an access within BOUNDS_SLACK bytes outside a
monitored allocation is reported (file, line, thread, block, allocation,
offset) and not performed (reads give 0), and the launch goes on, so a race
later in the same kernel is still found. Without it the access is recorded and
performed as the original program would (on the CPU backend: a launch failure).
The program writes its raw records to a dump; the report is Python's
(hirace_py.dump), as `hirace report` renders it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from hirace_py import dump, program
from hirace_py.instrument import state
from hirace_py.report import to_json, to_text

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "bounds" / "oob_race.cu"


@pytest.fixture(scope="module")
def executable(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bounds") / "oob_race"
    old = os.getcwd()
    os.chdir(SOURCE.parent)  # sources named as a user in their directory names them
    try:
        program.build(program.BuildOptions(sources=(Path(SOURCE.name),), output=out, cpu=True))
    finally:
        os.chdir(old)
    return out


def run(executable: Path, tmp_path: Path,
        **env: str) -> tuple[subprocess.CompletedProcess, dict, str]:  # fmt: skip
    path = tmp_path / "dump.json"
    proc = subprocess.run(
        [str(executable)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HIRACE_DUMP": str(path), **env},
        check=False,
    )
    report = dump.load(path)
    return proc, json.loads(to_json(report)), to_text(report)


def test_continue_reports_the_access_and_finds_the_race_after_it(
    executable: Path, tmp_path: Path
) -> None:
    proc, report, text = run(executable, tmp_path, HIRACE_BOUNDS="continue")
    assert proc.returncode == 0
    # The last thread read 0 in place of in[64]: out[63] = 63 + 0.
    assert proc.stdout == "status: no error, last: 63\n"
    [launch] = report["launches"]
    assert [
        (b["variable"], b["access"]["site"]["file"], b["access"]["site"]["line"],
         b["access"]["site"]["action"], b["offset"], b["size"], b["count"],
         b["access"]["thread"], b["access"]["block"], b["kernel"], b["performed"])
        for b in launch["bounds"]
    ] == [("in", "oob_race.cu", 11, "R", 256, 256, 1, [31, 0, 0], [1, 0, 0], "shift_sum",
           False)]  # fmt: skip
    assert report["summary"]["bounds"] == 1 and report["summary"]["exit_status"] == 1
    assert (
        "Out-of-bounds Read of 'in' in kernel shift_sum, 1 access(es) (not performed: "
        "reads gave 0)" in text
    )
    assert "byte offset 256 of a 256-byte allocation (0 byte(s) past its end)" in text
    assert {(r["variable"], r["second"]["site"]["line"]) for r in launch["races"]} == {
        ("total", 13)
    }


def test_without_continue_the_access_happens_as_in_the_original(
    executable: Path, tmp_path: Path
) -> None:
    proc, report, _ = run(executable, tmp_path)
    # The CPU backend's guard page stops the launch: the same as the
    # uninstrumented program, whose launch fails the same way. The access
    # was recorded before it was made, and the failed launch's records are
    # still read (docs/programs.md): it is reported as performed.
    assert "an illegal memory access" in proc.stdout
    [launch] = report["launches"]
    assert [
        (b["variable"], b["access"]["site"]["line"], b["access"]["site"]["action"], b["offset"],
         b["access"]["thread"], b["access"]["block"], b["performed"])
        for b in launch["bounds"]
    ] == [("in", 11, "R", 256, [31, 0, 0], [1, 0, 0], True)]  # fmt: skip


def test_slack_is_the_cpu_guard_page() -> None:
    assert state.BOUNDS_SLACK == os.sysconf("SC_PAGE_SIZE")
