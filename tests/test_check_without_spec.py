"""`hirace check FILE --kernel ...` without a spec, `hirace spec`, --timeout, help."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from hirace_py.cli import main
from hirace_py.errors import ExitCode

RACY = """\
__global__ void k(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i + 1];
}
"""

CLEAN = """\
__global__ void k(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + in[i + 1];
}
"""


def cli(argv: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        try:
            code = main(argv)
        except SystemExit as exc:
            code = int(exc.code or 0)
    finally:
        os.chdir(old)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_racy_kernel_is_found_without_a_spec(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "k.cu").write_text(RACY)
    code, out, err = cli(["check", "k.cu", "--kernel", "k", "--grid", "2", "--block", "64",
                          "--backend", "cpu", "--format", "json"], tmp_path, capsys)  # fmt: skip
    assert code == ExitCode.FINDINGS, err
    [launch] = json.loads(out)["launches"]
    assert (launch["grid"], launch["block"]) == ([2, 1, 1], [64, 1, 1])
    [race] = launch["races"]
    assert race["kind"] == "read-write" and race["variable"] == "a"
    assert {race["first"]["site"]["action"], race["second"]["site"]["action"]} == {"R", "W"}


def test_a_clean_kernel_is_clean_without_a_spec(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "k.cu").write_text(CLEAN)
    code, out, err = cli(["check", "k.cu", "--kernel", "k", "--grid", "2,1", "--block", "64",
                          "--backend", "cpu", "--arg", "n=100", "--seeds", "3",
                          "--format", "json"], tmp_path, capsys)  # fmt: skip
    assert code == ExitCode.CLEAN, err
    launches = json.loads(out)["launches"]
    assert len(launches) == 3 and all(not launch["races"] for launch in launches)
    assert launches[0]["grid"] == [2, 1, 1] and launches[0]["block"] == [64, 1, 1]


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["--kernel", "k", "--arg", "a=3"], ["--arg a", "pointer"]),
        (["--kernel", "k", "--arg", "m=3"], ["--arg m", "no such parameter"]),
        (["--kernel", "k", "--arg", "n=lots"], ["--arg n=lots", "not a number"]),
        (["--kernel", "nope"], ["'nope'"]),
        (["--kernel", "k", "--seeds", "0"], ["--seeds 0"]),
        (["--kernel", "k", "--grid", "0"], ["--grid"]),
        (["--kernel", "k", "--launch", "s.toml"], ["--kernel", "not both"]),
        ([], ["--launch SPEC.toml", "--kernel NAME", "hirace spec"]),
        (["--kernel", "k", "--timeout", "0"], ["--timeout 0"]),
    ],
)
def test_bad_options_without_a_spec(
    argv: list[str], needles: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "k.cu").write_text(RACY)
    code, _, err = cli(["check", "k.cu", "--backend", "cpu", *argv], tmp_path, capsys)
    assert code == ExitCode.USAGE, err
    [line] = [x for x in err.splitlines() if x.startswith("hirace: error:")]
    assert err.rstrip().endswith(line) and "Traceback" not in err
    for needle in needles:
        assert needle in line, line


def test_spec_writes_a_spec_that_check_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A struct with a pointer field: only a spec can give the pointer a value.
    structs = "struct P { int* x; };\n__global__ void by_struct(P p, int* a) { a[0] = *p.x; }\n"
    (tmp_path / "k.cu").write_text(RACY + CLEAN.replace("void k(", "void clean(") + structs)
    code, out, err = cli(["spec", "k.cu", "--block", "64", "-o", "s.toml"], tmp_path, capsys)
    assert code == ExitCode.CLEAN, err
    text = (tmp_path / "s.toml").read_text()
    doc = tomllib.loads(text)
    assert [launch["kernel"] for launch in doc["launch"]] == ["k", "clean"]
    assert "by_struct" in text and "parameter p" in text  # said in the header, not dropped
    assert doc["launch"][0]["args"]["a"]["dtype"] == "int32"
    code, out, err = cli(["check", "k.cu", "--launch", "s.toml", "--backend", "cpu",
                          "--format", "json"], tmp_path, capsys)  # fmt: skip
    assert code == ExitCode.FINDINGS, err
    racy, clean = json.loads(out)["launches"]
    assert racy["races"] and not clean["races"]


def test_timeout_stops_a_launch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HIRACE_TIMEOUT", "60")  # --timeout sets it; restored afterwards
    # Generated inputs are in [0, 100): the loop never ends.
    (tmp_path / "k.cu").write_text("__global__ void k(volatile int* s) { while (s[0] >= 0) { } }\n")
    code, _, err = cli(["check", "k.cu", "--kernel", "k", "--block", "1", "--backend", "cpu",
                        "--timeout", "0.5"], tmp_path, capsys)  # fmt: skip
    assert code == ExitCode.FINDINGS
    assert "time limit of 0.5 CPU s" in err


def test_help_gives_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: auto)" in text and "(default: text)" in text
    assert "(default: 256)" in text and "(default: 32)" in text
