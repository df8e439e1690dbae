"""CUDA as nvcc accepts it, one failure class per file (tests/catalogue/*.cu).

Each program must instrument, still compile with `nvcc -c` (where nvcc is
installed), and build and run with the CPU backend, printing what its
`// expect:` line says. The `unsupported_*` files must fail with one line
naming the feature (`// error:`) and the first line that holds `// use:`'s
text, exit status 2.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hirace_py import cli, program, source_text
from hirace_py.checker import include_dir
from hirace_py.instrument import instrument
from hirace_py.program import BuildOptions

HERE = Path(__file__).parent / "catalogue"
PROGRAMS = sorted(p for p in HERE.glob("*.cu") if not p.name.startswith("unsupported_"))
UNSUPPORTED = sorted(HERE.glob("unsupported_*.cu"))


def _expected(path: Path, key: str) -> str:
    m = re.search(rf"^// {key}: (.*)$", source_text.read(path), re.M)
    assert m is not None, f"{path.name} has no '// {key}:' line"
    return m[1]


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_instrumented_program_builds_and_runs_on_the_cpu(path: Path, tmp_path: Path) -> None:
    output = tmp_path / path.stem
    program.build(BuildOptions(sources=(path,), output=output, cpu=True))
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    proc = subprocess.run(
        [str(output)], capture_output=True, text=True, timeout=120, env=clean, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == _expected(path, "expect")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_instrumented_program_compiles_with_nvcc(path: Path, tmp_path: Path) -> None:
    result = instrument(source_text.read(path), str(path), header_dir=tmp_path / "headers")
    result.write_headers()
    out = tmp_path / f"{path.stem}.hirace.cu"
    source_text.write(out, result.source)
    proc = subprocess.run(
        ["nvcc", "-c", "-arch=sm_80", "-std=c++17", "-I", include_dir(), "-I", str(HERE),
         "-o", str(out.with_suffix(".o")), str(out)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("path", UNSUPPORTED, ids=lambda p: p.stem)
def test_unsupported_feature_is_one_line_with_its_place(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = cli.main(["instrument", str(path), "-o", str(tmp_path / "out.cu")])
    err = capsys.readouterr().err.strip()
    assert status == 2
    use = _expected(path, "use")
    line = next(
        i
        for i, text in enumerate(path.read_text().splitlines(), 1)
        if not text.startswith("//") and use in text
    )
    assert err == (
        f"hirace: error: {path}:{line}: {_expected(path, 'error')}: not supported by hirace"
    )


def test_bytes_that_are_not_utf8_come_back_unchanged(tmp_path: Path) -> None:
    """A Latin-1 comment is copied byte for byte into the instrumented output."""
    path = HERE / "latin1_comment.cu"
    out = tmp_path / "out.cu"
    assert cli.main(["instrument", str(path), "-o", str(out)]) == 0
    original, rewritten = path.read_bytes(), out.read_bytes()
    assert original.splitlines()[0] in rewritten.splitlines()
    assert b"// caf\xe9\n" in rewritten
    assert rewritten.count(b"\xe9") == original.count(b"\xe9") == 2


LAMBDA = Path(__file__).parent / "lambdas" / "device_lambda.cu"


def test_device_lambda_from_host_builds_runs_and_is_warned(tmp_path: Path) -> None:
    """A template kernel launched with a host-written __device__ lambda builds
    for the CPU (it failed in g++: the closure type was spelled `(lambda at
    ...)`), runs, and the lambda's unchecked body is a `device-lambda` warning."""
    result = instrument(source_text.read(LAMBDA), str(LAMBDA), target="cpu", program=True,
                        header_dir=tmp_path / "headers")  # fmt: skip
    lambdas = [w for w in result.tables.warnings if w.code == "device-lambda"]
    assert [w.line for w in lambdas] == [14]
    output = tmp_path / "device_lambda"
    program.build(BuildOptions(sources=(LAMBDA,), output=output, cpu=True))
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    proc = subprocess.run([str(output)], capture_output=True, text=True, timeout=120, env=clean,
                          check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == _expected(LAMBDA, "expect")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_device_lambda_instrumented_compiles_with_nvcc(tmp_path: Path) -> None:
    result = instrument(source_text.read(LAMBDA), str(LAMBDA), header_dir=tmp_path / "headers")
    result.write_headers()
    out = tmp_path / "device_lambda.hirace.cu"
    source_text.write(out, result.source)
    proc = subprocess.run(
        ["nvcc", "-c", "-arch=sm_80", "-std=c++17", "--extended-lambda", "-I", include_dir(),
         "-o", str(out.with_suffix(".o")), str(out)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
