"""`hirace instrument` and `hirace include-dir`: outputs, warnings, --strict, errors."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from hirace_py.cli import main

KERNEL = """\
#define BAD(a, i) (a[i] + 1)
__global__ void k(int* a, int n) {
  int i = threadIdx.x;
  if (i < n) a[i] = BAD(a, i);
}
"""


def test_instrument_writes_output_and_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    out, tables = tmp_path / "k.hirace.cu", tmp_path / "k.json"
    assert main(["instrument", str(src), "-o", str(out), "--tables", str(tables)]) == 0
    text = out.read_text()
    assert text.startswith('#include "hirace_runtime.cuh"\n#line 1 "k.cu"\n')
    assert "hirace::wr(__hr_t, &(a[i])" in text
    doc = json.loads(tables.read_text())
    assert [k["name"] for k in doc["kernels"]] == ["k"]
    assert [w["code"] for w in doc["warnings"]] == ["macro"]
    err = capsys.readouterr().err
    assert "k.cu:4:" in err and "[macro]" in err and "1 construct(s) not instrumented" in err


def test_strict_turns_warnings_into_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    assert main(["instrument", str(src), "--strict", "-o", str(tmp_path / "o.cu")]) == 2
    assert "--strict" in capsys.readouterr().err
    assert not (tmp_path / "o.cu").exists()


def test_parse_errors_name_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "broken.cu"
    src.write_text("__global__ void k(int* a) {\n  a[0] = undeclared_thing;\n}\n")
    assert main(["instrument", str(src)]) == 2
    err = capsys.readouterr().err
    assert "broken.cu:2:" in err and "undeclared_thing" in err


def test_missing_file_and_bad_define(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["instrument", str(tmp_path / "nope.cu")]) == 2
    assert "cannot read" in capsys.readouterr().err
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int* a) { a[0] = N; }\n")
    assert main(["instrument", str(src), "-D", "1x=3"]) == 2
    assert main(["instrument", str(src), "-D", "N=3", "-o", str(tmp_path / "o.cu")]) == 0


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_output_builds_with_nvcc_using_include_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    out = tmp_path / "k.hirace.cu"
    assert main(["instrument", str(src), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["include-dir"]) == 0
    inc = capsys.readouterr().out.strip()
    assert (Path(inc) / "hirace_runtime.cuh").is_file()
    done = subprocess.run(["nvcc", "-c", "-arch=sm_80", "-I", inc, str(out), "-o",
                           str(tmp_path / "k.o")], capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
