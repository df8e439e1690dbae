"""The host-device test programs (tests/hostdev/): each built for the CPU
backend, correct and with each planted bug, run with HIRACE_DUMP, and its
report compared with tests/hostdev/expected.toml: exactly the planted
findings, with their buffers, byte ranges and both lines; no races. The
instrumented programs also compile with nvcc -c (where nvcc is installed)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from hirace_py import dump, program
from hirace_py.instrument import instrument
from hirace_py.instrument.runtime import include_dir
from hirace_py.program import BuildOptions
from hirace_py.report import to_text

HERE = Path(__file__).parent / "hostdev"
CASES = tomllib.loads((HERE / "expected.toml").read_text())["case"]


def _id(case: dict) -> str:
    return f"{case['source']}:{case.get('define', 'correct')}"


def _run(case: dict, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    define = case.get("define")
    out = tmp_path / "app"
    old = os.getcwd()
    os.chdir(HERE)
    try:
        program.build(BuildOptions(sources=(Path(case["source"]),), output=out, cpu=True,
                                   defines={define: None} if define else {}))  # fmt: skip
    finally:
        os.chdir(old)
    path = tmp_path / "dump.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    run = subprocess.run([str(out)], capture_output=True, text=True, timeout=120, cwd=HERE,
                         env={**env, "HIRACE_DUMP": str(path)}, check=False)  # fmt: skip
    return run, path


def test_every_finding_kind_has_a_buggy_and_a_correct_program():
    kinds = {f["kind"] for c in CASES for f in c["findings"]}
    assert kinds == {"host-device-race", "uninitialised-read", "stale-host-data",
                     "stale-device-data", "out-of-bounds-copy", "bad-free", "leak",
                     "ignored-error"}  # fmt: skip
    sources = {c["source"] for c in CASES}
    assert all(any(c["source"] == s and not c["findings"] for c in CASES) for s in sources)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_program_reports_exactly_its_planted_findings(case: dict, tmp_path: Path):
    run, path = _run(case, tmp_path)
    assert run.returncode == 0, run.stderr
    report = dump.load(path)
    text = to_text(report)
    assert report.races == [], text
    got = [{"kind": f.kind, "buffer": f.buffer, "bytes": [f.lo, f.hi],
            "lines": [f.first.line if f.first else 0, f.second.line]}
           for f in report.host]  # fmt: skip
    assert got == case["findings"], text
    assert all(f.second.file == case["source"] for f in report.host)
    assert int(report.exit_status) == (1 if case["findings"] else 0)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_instrumented_programs_compile_with_nvcc(tmp_path: Path):
    """The host code hirace adds (hooked calls, recorded host accesses) builds with nvcc."""
    sources = []
    for cu in sorted({c["source"] for c in CASES}):
        out = tmp_path / cu.replace(".cu", ".hirace.cu")
        result = instrument((HERE / cu).read_text(), cu, include_dirs=[str(HERE)])
        out.write_text(result.source)
        sources.append(str(out))
    done = subprocess.run(["nvcc", "-std=c++17", "-arch=sm_80", f"-I{include_dir()}", "-c",
                           *sources], cwd=tmp_path, capture_output=True, text=True,
                          timeout=1800, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert all((tmp_path / Path(s).name.replace(".cu", ".o")).is_file() for s in sources)
