"""`hirace check --engine values|both` and `--deterministic` on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hirace_py.cli import main

# Warp 0 reads what warp 1 writes (values engine finds it), and lanes 0 and 1
# of warp 0 write one element (a same-warp race only the FSM engine finds).
KERNEL = """\
__global__ void k(int *a, int *b)
{
    int t = threadIdx.x;
    int v = a[(t + 32) % 64];
    a[t] = v + 1;
    if (t < 2)
        b[0] = t + 5;
}
"""
SPEC = """\
[[launch]]
kernel = "k"
grid = 1
block = 64
args.a = { dtype = "int32", length = 64, init = "arange" }
args.b = { dtype = "int32", length = 1 }
"""


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "k.cu").write_text(KERNEL)
    (tmp_path / "k.toml").write_text(SPEC)
    return tmp_path / "k.cu", tmp_path / "k.toml"


def test_both_reports_each_engines_races_and_the_disagreement(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    src, spec = files
    status = main(["check", str(src), "--launch", str(spec), "--engine", "both",
                   "--backend", "cpu", "--format", "json"])  # fmt: skip
    assert status == 1
    launch = json.loads(capsys.readouterr().out)["launches"][0]
    found = {(r["engine"], r["kind"], r["first"]["site"]["line"], r["second"]["site"]["line"])
             for r in launch["races"]}  # fmt: skip
    assert ("values", "read-write", 5, 4) in found
    assert ("fsm", "write-write", 7, 7) in found
    assert not {f for f in found if f[0] == "values"} - {("values", "read-write", 5, 4)}
    codes = [n["code"] for n in launch["notices"]]
    assert codes == ["engines-same-warp"]
    assert "lines 7 and 7 found by the fsm engine only" in launch["notices"][0]["message"]


def test_values_text_report_tags_the_engine(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    src, spec = files
    assert main(["check", str(src), "--launch", str(spec), "--engine", "values"]) == 1
    out = capsys.readouterr().out
    assert "Race (read-write) [values engine] on global memory: 'a'" in out
    assert "k.cu:5:" in out and "k.cu:4:" in out and "'b'" not in out


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--deterministic"], "--deterministic needs --engine values or both"),
        (["--engine", "values", "--backend", "cupy"], "runs on the CPU backend only"),
    ],
)
def test_bad_engine_options_are_one_line_errors(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str], options: list[str],
    message: str,
) -> None:  # fmt: skip
    src, spec = files
    assert main(["check", str(src), "--launch", str(spec), *options]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_suites_take_the_values_engine_on_the_cpu_backend_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A suite's codes run as whole programs, which the values engine runs on the
    CPU backend (tests/test_values_programs.py runs them): asking for the GPU is
    a one-line error before anything is built."""
    root = Path(__file__).resolve().parent.parent / "indigo"
    argv = [str(root / "minisuite"), "--inputs", str(root / "graphs" / "dag_8.egr")]
    for engine in ("values", "both"):
        assert main(["check", *argv, "--engine", engine, "--backend", "cupy"]) == 2
        err = capsys.readouterr().err
        assert f"--engine {engine}: the values engine runs on the CPU backend only" in err
        assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("engine", ["values", "both"])
def test_the_values_engine_checks_arguments_as_the_fsm_engine_does(
    files: tuple[Path, Path], engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A float32 array for `int *a` is one error naming the parameter, exit 2,
    before anything runs, whichever engine runs the launch."""
    kernel, spec = files
    spec.write_text(SPEC.replace('args.a = { dtype = "int32"', 'args.a = { dtype = "float32"'))
    code = main(["check", str(kernel), "--launch", str(spec), "--engine", engine])
    err = capsys.readouterr().err
    assert code == 2
    errors = [line for line in err.splitlines() if line.startswith("hirace: error:")]
    assert len(errors) == 1 and "parameter a (int *)" in errors[0], err


@pytest.mark.parametrize("engine", ["values", "both"])
def test_defines_reach_the_values_engine(
    tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """-D decides the kernel the values engine runs: with SHIFT=32 warp 0
    reads what warp 1 writes (a race it finds), with SHIFT=0 every thread
    reads and writes its own element."""
    (tmp_path / "k.cu").write_text(KERNEL.replace("(t + 32) % 64", "(t + SHIFT) % 64"))
    (tmp_path / "k.toml").write_text(SPEC)
    found = {}
    for shift in ("32", "0"):
        argv = ["check", str(tmp_path / "k.cu"), "--launch", str(tmp_path / "k.toml"),
                "--engine", engine, "--backend", "cpu", "--format", "json", "-D", f"SHIFT={shift}"]
        main(argv)
        launch = json.loads(capsys.readouterr().out)["launches"][0]
        found[shift] = {(r["engine"], r["kind"]) for r in launch["races"]
                        if (r["first"]["site"]["line"], r["second"]["site"]["line"]) == (5, 4)}
    assert ("values", "read-write") in found["32"]
    assert found["0"] == set()
