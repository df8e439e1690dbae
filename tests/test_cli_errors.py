"""The CLI's error and exit contract, case by case.

Every bad input ends in exactly one `hirace: error:` line naming the file,
launch, key or parameter, no traceback, and the exit status of
hirace_py.errors.ExitCode: 2 for usage or input errors, 3 for a tool or
environment failure. Runtime findings keep the races found before them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hirace_py.cli import main
from hirace_py.errors import ExitCode

KERNELS = """\
struct P { int x; float y; };
__global__ void shift(int* a, int n) {
  int i = threadIdx.x;
  a[i] = i;
  int v = a[(i + 1) % n];
  a[n + i] = v;
}
__global__ void by_struct(P* p, int n) { p[threadIdx.x].x = n; }
"""

SHIFT_ARGS = 'a = { dtype = "int32", length = 64 }\nn = 32\n'


def spec(kernel: str = "shift", args: str = SHIFT_ARGS, block: int = 32) -> str:
    return f'[[launch]]\nkernel = "{kernel}"\ngrid = 1\nblock = {block}\n[launch.args]\n{args}'


def files(tmp: Path, **texts: str | bytes) -> None:
    for name, text in texts.items():
        path = tmp / name.replace("__", ".")
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)


Case = tuple[dict[str, str | bytes], list[str], int, list[str]]
"""Files to write (name with __ for .), argv, exit status, texts the error line must hold."""

CHECK = ["check", "k.cu", "--backend", "cpu", "--launch", "s.toml"]

CASES: dict[str, Case] = {
    "float for an int parameter": (
        {"s__toml": spec(args='a = { dtype = "int32", length = 64 }\nn = 32.5\n')}, CHECK, 2,
        ["s.toml: launch[0]", "parameter n", "expects an integer", "32.5"]),
    "float32 array for int*": (
        {"s__toml": spec(args='a = { dtype = "float32", length = 64 }\nn = 32\n')}, CHECK, 2,
        ["s.toml: launch[0]", "parameter a", "float32"]),
    "scalar overflowing its type": (
        {"s__toml": spec(args='a = { dtype = "int32", length = 64 }\nn = 99999999999\n')},
        CHECK, 2, ["s.toml: launch[0]", "parameter n", "2147483647"]),
    "negative value for an unsigned parameter is range-checked too": (
        {"k__cu": "__global__ void u(unsigned* a, unsigned n) { a[0] = n; }\n",
         "s__toml": spec("u", 'a = { dtype = "uint32", length = 1 }\nn = -1\n')},
        CHECK, 2, ["parameter n", "[0, 4294967295]"]),
    "unknown kernel": (
        {"s__toml": spec("nope")}, CHECK, 2,
        ["s.toml: launch[0].kernel", "'nope'", "shift, by_struct"]),
    "empty source": ({"k__cu": ""}, CHECK, 2, ["k.cu", "empty"]),
    "binary source": ({"k__cu": bytes(range(256))}, CHECK, 2, ["k.cu", "not a text file"]),
    "binary file as --launch": ({"s__toml": bytes(range(256))}, CHECK, 2, ["s.toml", "UTF-8"]),
    "invalid TOML as --launch": ({"s__toml": "[[launch]\n"}, CHECK, 2, ["s.toml", "invalid TOML"]),
    "missing --launch file": ({}, [*CHECK[:-1], "none.toml"], 2, ["none.toml", "cannot read"]),
    "missing source file": ({}, ["check", "none.cu", "--launch", "s.toml"], 2,
                            ["none.cu", "no such file"]),
    "array size not fitting a struct pointer": (
        {"s__toml": spec("by_struct", 'p = { dtype = "int32", length = 3 }\nn = 1\n')},
        CHECK, 2, ["s.toml: launch[0]", "`p`", "multiple of 8"]),
    "missing argument": (
        {"s__toml": spec(args='a = { dtype = "int32", length = 64 }\n')}, CHECK, 2,
        ["s.toml: launch[0].args", "missing parameter", "n"]),
    "argument of no parameter": (
        {"s__toml": spec(args=SHIFT_ARGS + "m = 1\n")}, CHECK, 2,
        ["s.toml: launch[0].args", "unknown parameter", "m"]),
    "array for a scalar": (
        {"s__toml": spec(args='a = { dtype = "int32", length = 64 }\n'
                               'n = { dtype = "int32", length = 1 }\n')},
        CHECK, 2, ["s.toml: launch[0]", "parameter n", "not a pointer"]),
    "block too large": ({"s__toml": spec(block=2048)}, CHECK, 2, ["s.toml: launch[0]", "1024"]),
    ".npy path that is not an array": (
        {"s__toml": spec(args='a = { dtype = "int32", init = "npy", path = "x.npy" }\nn = 1\n'),
         "x__npy": "not numpy"}, CHECK, 2, ["launch[0].args.a.path", "x.npy"]),
    "unknown key in hirace.toml": (
        {"s__toml": spec(), "c__toml": "[report]\nsize = 3\n"}, [*CHECK, "--config", "c.toml"],
        2, ["c.toml", "report.size"]),
    "bad -D": ({"s__toml": spec()}, [*CHECK, "-D", "1X=2"], 2, ["-D 1X=2"]),
    "source that does not compile": (
        {"k__cu": "__global__ void k(int* a) { a[0] = undefined_name; }\n",
         "s__toml": spec("k", 'a = { dtype = "int32", length = 1 }\n')}, CHECK, 2,
        ["k.cu:1"]),
    "unwritable -o": ({"s__toml": spec()}, [*CHECK, "-o", "no/such/dir/r.json"], 2,
                      ["no/such/dir/r.json", "cannot write"]),
    "directory without a manifest": ({}, ["check", "."], 2, ["manifest.toml"]),
    "--inputs for a file": ({}, ["check", "k.cu", "--inputs", "g.egr"], 2, ["suite directory"]),
    "suite option for a kernel file": ({"s__toml": spec()}, [*CHECK, "--jobs", "2"], 2,
                                       ["--jobs", "suites only"]),
    "kernel option for a litmus suite": (
        {"lit/manifest__toml": ""}, ["check", "lit", "--kernel", "shift"], 2,
        ["--kernel applies to kernel files only (a .cu file)"]),
    "--deterministic for a litmus suite": (
        {"lit/manifest__toml": ""}, ["check", "lit", "--deterministic"], 2,
        ["--deterministic applies to kernel files only"]),
    "--launch for a suite": (
        {}, ["check", ".", "--inputs", "k.cu", "--launch", "s.toml"], 2,
        ["--launch applies to kernel files only"]),
    "sarif for a litmus suite": (
        {"lit/manifest__toml": ""}, ["check", "lit", "--format", "sarif"], 2,
        ["--format sarif", "litmus suites", "text, json"]),
    "csv for a kernel file": (
        {}, [*CHECK, "--format", "csv"], 2, ["--format csv", "kernel files", "json, sarif, text"]),
    "zero timeout for a litmus suite": (
        {"lit/manifest__toml": ""}, ["check", "lit", "--timeout", "0"], 2, ["--timeout 0"]),
    "unknown option": ({}, ["check", "k.cu", "--frobnicate"], 2, ["--frobnicate"]),
    "unknown sub-command": ({}, ["chekc"], 2, ["chekc"]),
    "run with no sources": ({}, ["run"], 2, ["no source files"]),
    "instrument a binary file": ({"k__cu": b"\xff\xfe\x00"}, ["instrument", "k.cu"], 2,
                                 ["k.cu", "not a text file"]),
    "fsm trace syntax": ({}, ["fsm", "--trace", "X 0.0.0"], 2, ["X"]),
    # With a precompiled toolkit header, a missing one was an internal error
    # (the bindings assert on the File of an include not found).
    "header not found beside a precompiled one": (
        {"k__cu": '#include <cuda.h>\n#include "no_such_header.h"\n' + KERNELS},
        ["instrument", "k.cu"], 2, ["k.cu:2:10", "'no_such_header.h' file not found"]),
}  # fmt: skip


def run_cli(argv: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's usage errors
            code = int(exc.code or 0)
    finally:
        os.chdir(old)
    return code, capsys.readouterr().err


def assert_one_error_line(err: str, needles: list[str]) -> str:
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("hirace: error:")]
    assert len(errors) == 1, err
    assert err.rstrip().splitlines()[-1] == errors[0], err
    for needle in needles:
        assert needle in errors[0], (needle, errors[0])
    return errors[0]


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_one_line_and_its_exit_status(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    texts, argv, status, needles = CASES[name]
    files(tmp_path, **{"k__cu": KERNELS, "s__toml": spec(), **texts})
    code, err = run_cli(argv, tmp_path, capsys)
    assert code == status, err
    assert_one_error_line(err, needles)


def test_unwritable_output_is_reported_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files(tmp_path, k__cu=KERNELS, s__toml=spec())
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o500)
    try:
        code, err = run_cli([*CHECK, "-o", "ro/r.json"], tmp_path, capsys)
    finally:
        (tmp_path / "ro").chmod(0o700)
    if os.geteuid() == 0:
        pytest.skip("root can write anywhere")
    assert code == ExitCode.USAGE
    assert_one_error_line(err, ["ro/r.json", "cannot write"])
    assert "backend cpu" not in err  # nothing was compiled or run


FAKE_CUPY = """\
class CUDARuntimeError(RuntimeError):
    pass
class _Runtime:
    @staticmethod
    def getDeviceCount():
        raise CUDARuntimeError("cudaErrorInsufficientDriver: CUDA driver version is "
                               "insufficient for CUDA runtime version")
class cuda:
    runtime = _Runtime
"""


def test_cupy_installed_without_a_driver_is_a_tool_failure(tmp_path: Path) -> None:
    """A stand-in `cupy` whose runtime reports no driver, as CuPy does on a machine
    with the package and no NVIDIA driver."""
    (tmp_path / "fake" / "cupy").mkdir(parents=True)
    (tmp_path / "fake" / "cupy" / "__init__.py").write_text(FAKE_CUPY)
    files(tmp_path, k__cu=KERNELS, s__toml=spec())
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "fake")}
    argv = [sys.executable, "-m", "hirace_py.cli", *CHECK[:3], "cupy", *CHECK[4:]]
    proc = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                          check=False)  # fmt: skip
    assert proc.returncode == ExitCode.TOOL_FAILURE, proc.stderr
    assert_one_error_line(proc.stderr, ["--backend cupy", "cudaErrorInsufficientDriver"])


RACE_THEN_FAULT = """\
__global__ void racy(int* a) { a[0] = threadIdx.x; }
__global__ void faulty(int* a) { a[threadIdx.x * 1000] = 1; }
"""


def test_earlier_launches_are_reported_when_a_later_one_faults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files(tmp_path, k__cu=RACE_THEN_FAULT,
          s__toml=spec("racy", 'a = { dtype = "int32", length = 4 }\n')
          + "\n" + spec("faulty", 'a = { dtype = "int32", length = 4 }\n'))  # fmt: skip
    code, err = run_cli([*CHECK, "--format", "json"], tmp_path, capsys)
    assert code == ExitCode.FINDINGS
    line = assert_one_error_line(err, ["s.toml: launch[1]", "faulty"])
    assert "out of bounds" in line or "bounds" in line
    # capsys took stdout too: run again to read the report.
    code, out = _stdout_of([*CHECK, "--format", "json"], tmp_path, capsys)
    doc = json.loads(out)
    racy, faulty = doc["launches"]
    assert racy["kernel"] == "racy" and racy["races"] and racy.get("error") is None
    assert faulty["kernel"] == "faulty" and "bounds" in faulty["error"]


def _stdout_of(argv: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        code = main(argv)
    finally:
        os.chdir(old)
    return code, capsys.readouterr().out


RACE_THEN_SPIN = """\
__global__ void k(int* a, volatile int* stop) {
  a[0] = threadIdx.x;
  __syncthreads();
  while (!stop[0]) { }
}
"""


def test_a_launch_stopped_by_the_time_limit_reports_races_found_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    files(tmp_path, k__cu=RACE_THEN_SPIN,
          s__toml=spec("k", 'a = { dtype = "int32", length = 1 }\n'
                            'stop = { dtype = "int32", length = 1 }\n', block=2))  # fmt: skip
    monkeypatch.setenv("HIRACE_TIMEOUT", "1")
    code, out = _stdout_of([*CHECK, "--format", "json"], tmp_path, capsys)
    assert code == ExitCode.FINDINGS
    [launch] = json.loads(out)["launches"]
    assert "time limit" in launch["error"]
    [race] = launch["races"]
    assert race["kind"] == "write-write" and race["first"]["site"]["line"] == 2


PRINTS = """\
#include <cstdio>
__global__ void k(int* a) { printf("hello from %d\\n", threadIdx.x); a[0] = 1; }
"""


def test_kernel_printf_goes_to_stderr_when_the_report_goes_to_stdout(tmp_path: Path) -> None:
    files(tmp_path, k__cu=PRINTS, s__toml=spec("k", 'a = { dtype = "int32", length = 1 }\n', 2))
    proc = subprocess.run([sys.executable, "-m", "hirace_py.cli", *CHECK, "--format", "json"],
                          cwd=tmp_path, capture_output=True, text=True, check=False)  # fmt: skip
    assert proc.returncode == ExitCode.FINDINGS, proc.stderr
    assert json.loads(proc.stdout)["launches"][0]["races"]
    assert "hello from 1" in proc.stderr


SPIN = """\
__global__ void k(volatile int* stop) { while (!stop[0]) { } }
"""


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_is_one_line_and_status_130(tmp_path: Path) -> None:
    files(tmp_path, k__cu=SPIN, s__toml=spec("k", 'stop = { dtype = "int32", length = 1 }\n', 1))
    # A shell job started with `&` passes SIGINT on as ignored, and Python then
    # installs no handler: the child starts with the default, as in a terminal.
    proc = subprocess.Popen([sys.executable, "-m", "hirace_py.cli", *CHECK],
                            cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, preexec_fn=_default_sigint)  # fmt: skip
    assert proc.stderr is not None
    first = proc.stderr.readline()  # the backend note: compiled, about to launch
    assert "backend cpu" in first
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    _, rest = proc.communicate(timeout=60)
    assert proc.returncode == ExitCode.INTERRUPTED
    assert "Traceback" not in rest and rest.strip() == "hirace: interrupted"


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    files(tmp_path, k__cu="", s__toml=spec())
    base = [sys.executable, "-m", "hirace_py.cli"]
    argv = ["check", "k.cu", "--launch", "s.toml"]
    quiet = subprocess.run([*base, *argv], cwd=tmp_path, capture_output=True, text=True,
                           check=False)  # fmt: skip
    loud = subprocess.run([*base, "--debug", *argv], cwd=tmp_path, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert quiet.returncode == ExitCode.USAGE and "Traceback" not in quiet.stderr
    assert "Traceback" in loud.stderr and "InputError" in loud.stderr


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    import hirace_py

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"hirace {hirace_py.__version__}"


def test_internal_errors_are_tool_failures(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bug in hirace (any unexpected exception) is status 3 and one line, never 1."""
    import hirace_py.commands.include_dir as command

    def broken(args: object) -> int:
        raise RuntimeError("simulated bug\nsecond line")

    monkeypatch.setattr(command, "run", broken)
    code = main(["include-dir"])
    assert code == ExitCode.TOOL_FAILURE
    assert capsys.readouterr().err.strip() == (
        "hirace: internal error: RuntimeError: simulated bug (rerun with --debug for the traceback)"
    )


def test_a_suite_stores_no_rows_for_an_environment_failure(tmp_path: Path) -> None:
    """No C++ compiler: the suite stops with a tool failure (3) and the results
    database holds no error rows that a rerun would reuse."""
    import sqlite3

    repo = Path(__file__).resolve().parent.parent
    env = {**os.environ, "HIRACE_CXX": str(tmp_path / "no-such-g++"),
           "HIRACE_CACHE": str(tmp_path / "cache")}  # fmt: skip
    db = tmp_path / "r.sqlite"
    argv = [sys.executable, "-m", "hirace_py.cli", "check", str(repo / "indigo" / "minisuite"),
            "--inputs", str(repo / "indigo" / "graphs" / "dag_8.egr"), "--backend", "cpu",
            "--db", str(db)]  # fmt: skip
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == ExitCode.TOOL_FAILURE, proc.stderr
    assert_one_error_line(proc.stderr, ["no-such-g++", "not found"])
    if db.exists():
        with sqlite3.connect(db) as con:
            tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master "
                                                "WHERE type='table'")]  # fmt: skip
            for table in tables:
                if table != "meta":
                    assert con.execute(f"SELECT COUNT(*) FROM {table}").fetchone() == (0,)


TWO_KERNELS = """\
__global__ void first(int* a) {
  a[threadIdx.x] = 1;
}

__global__ void second(int* a) {
  int i = threadIdx.x * 1000;
  a[i] = 2;
}

__global__ void third(int* a) {
  if (threadIdx.x == 0) __syncthreads();
}
"""


@pytest.mark.parametrize(("kernel", "where"), [("second", "k.cu:7"), ("third", "k.cu:11")])
def test_fault_and_divergence_lines_of_a_later_kernel(
    kernel: str, where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The instrumented source's header must not shift the lines the CPU backend
    reports for kernels after the first one in the file."""
    files(tmp_path, k__cu=TWO_KERNELS,
          s__toml=spec(kernel, 'a = { dtype = "int32", length = 4 }\n', block=4))  # fmt: skip
    code, err = run_cli(CHECK, tmp_path, capsys)
    assert code == ExitCode.FINDINGS
    line = assert_one_error_line(err, ["s.toml: launch[0]", kernel])
    assert line.endswith(where) or f"{where};" in line, line


MAYBE_RACY = """\
#include "lanes.h"
__global__ void k(int* a) {
#ifdef RACY
  a[0] = threadIdx.x;
#else
  a[threadIdx.x % LANES] = threadIdx.x;
#endif
}
"""


def test_defines_and_include_dirs_reach_the_kernel_file_and_the_litmus_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "lanes.h").write_text("#define LANES 4\n")
    files(tmp_path, k__cu=MAYBE_RACY, s__toml=spec("k", 'a = { dtype = "int32", length = 4 }\n',
                                                   block=4))  # fmt: skip
    plain = [*CHECK, "-I", "inc"]
    assert run_cli(plain, tmp_path, capsys)[0] == ExitCode.CLEAN
    assert run_cli([*plain, "-D", "RACY"], tmp_path, capsys)[0] == ExitCode.FINDINGS
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "k.cu").write_text(MAYBE_RACY)
    (tmp_path / "suite" / "manifest.toml").write_text(
        '[[case]]\nname = "racy"\nfile = "k.cu"\nkernel = "k"\ngrid = 1\nblock = 4\n'
        'expect = "race"\nraces = [{ lines = [4, 4], kind = "write-write", space = "global" }]\n'
        '[case.args]\na = { dtype = "int32", length = 4 }\n'
    )
    suite = ["check", "suite", "--backend", "cpu", "-I", "inc", "--format", "json"]
    code, out = _stdout_of([*suite, "-D", "RACY"], tmp_path, capsys)
    assert code == ExitCode.CLEAN
    [case] = json.loads(out)["cases"]
    assert case["ok"] and case["found"] == [{"lines": [4, 4], "kind": "write-write",
                                             "space": "global"}]  # fmt: skip
    code, out = _stdout_of(suite, tmp_path, capsys)
    assert code == ExitCode.FINDINGS
    [case] = json.loads(out)["cases"]
    assert not case["ok"] and case["missed"] and not case["error"]
