"""hirace_py.check and `hirace check FILE --launch SPEC`: results, formats, errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import hirace_py
from hirace_py.checker import Checker
from hirace_py.cli import main
from hirace_py.config import Config
from hirace_py.errors import UnknownKernel
from hirace_py.launch_config import LaunchConfig
from hirace_py.report import to_json, to_sarif, to_text

RACY = """\
__global__ void shift(int* a, int n) {
  int i = threadIdx.x;
  a[i] = i;
  int v = a[(i + 1) % n];
  a[n + i] = v;
}
"""

CLEAN = """\
__global__ void shift(int* a, int n) {
  int i = threadIdx.x;
  a[i] = i;
  __syncthreads();
  int v = a[(i + 1) % n];
  a[n + i] = v;
}
"""


ONE_WARP = LaunchConfig.of(1, 32)

def test_racy_kernel_reports_the_pair_with_both_sites() -> None:
    a = np.zeros(64, np.int32)
    report = hirace_py.check(RACY, "shift", 1, 32, [a, 32], backend="cpu", filename="racy.cu")
    assert report.exit_status == 1
    [race] = report.races
    assert race.kind == "read-write" and race.space == "global" and race.variable == "a"
    assert race.lines() == (3, 4) and race.exact
    assert race.count == 32
    assert {race.first.site.action, race.second.site.action} == {"R", "W"}
    assert race.first.thread != race.second.thread


def test_barrier_makes_it_race_free_and_results_come_back() -> None:
    a = np.zeros(64, np.int32)
    report = hirace_py.check(CLEAN, "shift", 1, 32, [a, 32], backend="cpu")
    assert report.exit_status == 0 and not report.races
    np.testing.assert_array_equal(a[32:], (np.arange(32) + 1) % 32)


def test_same_value_written_twice_is_a_race() -> None:
    src = "__global__ void k(int* a) { a[0] = 7; }\n"
    a = np.zeros(1, np.int32)
    [race] = hirace_py.check(src, "k", 1, 2, [a], backend="cpu").races
    assert race.kind == "write-write" and race.lines() == (1, 1)


def test_last_pair_mode_marks_an_inexact_partner() -> None:
    # t0 writes, warp barrier, t1 reads (ordered), t32 reads: races with t0's
    # write, but the shadow word's last access is t1's read.
    src = """\
__global__ void k(int* a, int* out) {
  int t = threadIdx.x;
  if (t == 0) a[0] = 1;
  __syncwarp();
  if (t == 1) out[0] = a[0];
  if (t == 32) out[1] = a[0];
}
"""
    races = {}
    for pairs in ("last", "exact"):
        a, out = np.zeros(1, np.int32), np.zeros(2, np.int32)
        report = hirace_py.check(src, "k", 1, 64, [a, out], backend="cpu",
                                 config=Config(pairs=pairs))  # fmt: skip
        races[pairs] = report.races
    [last] = races["last"]
    assert not last.exact and last.second.site.line == 6
    [exact] = races["exact"]
    assert exact.exact and exact.lines() == (3, 6) and exact.kind == "read-write"


def test_formats(tmp_path: Path) -> None:
    a = np.zeros(64, np.int32)
    report = hirace_py.check(RACY, "shift", 1, 32, [a, 32], backend="cpu", filename="racy.cu")
    text = to_text(report)
    assert "Race (read-write) on global memory: 'a'" in text
    assert "racy.cu:3:" in text and "racy.cu:4:" in text and "a[i] = i;" in text
    doc = json.loads(to_json(report))
    assert doc["summary"]["races"] == 1
    assert doc["launches"][0]["races"][0]["kind"] == "read-write"
    sarif = json.loads(to_sarif(report))
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["name"] == "hirace"
    [result] = run["results"]
    assert result["ruleId"] == "read-write"
    locations = result["locations"] + result["relatedLocations"]
    lines = sorted(loc["physicalLocation"]["region"]["startLine"] for loc in locations)
    assert lines == [3, 4]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rule_ids[result["ruleIndex"]] == result["ruleId"]


def test_argument_errors_name_the_parameter() -> None:
    checker = Checker(RACY, "racy.cu", backend="cpu")
    with pytest.raises(TypeError, match="takes 2 arguments"):
        checker.launch("shift", ONE_WARP, [np.zeros(4, np.int32)])
    with pytest.raises(TypeError, match=r"parameter a .* pointer"):
        checker.launch("shift", ONE_WARP, [5, 32])
    with pytest.raises(TypeError, match=r"parameter n .* not a pointer"):
        checker.launch("shift", ONE_WARP, [np.zeros(4, np.int32), np.zeros(1, np.int32)])
    with pytest.raises(UnknownKernel, match=r"no instrumented kernel .nope."):
        checker.launch("nope", ONE_WARP, [])


def test_barrier_clock_overflow_is_reported_never_silent() -> None:
    """More than 2^16 barriers with 16-bit clocks: tracking stops, the warning counts it."""
    src = """\
__global__ void k(int* a, int rounds) {
  int t = threadIdx.x;
  for (int r = 0; r < rounds; ++r) __syncthreads();
  a[t == 0 ? 0 : 1] = t;
  a[0] = t;
}
"""
    a = np.zeros(2, np.int32)
    capped = hirace_py.check(src, "k", 1, 32, [a, 70_000], backend="cpu",
                             config=Config(clock_bits=16))  # fmt: skip
    [launch] = capped.launches
    overflow = {n.code: n for n in launch.notices}["clock-overflow"]
    assert overflow.count == 64 and "65535 block barriers" in overflow.message
    assert not capped.races
    full = hirace_py.check(src, "k", 1, 32, [a, 70_000], backend="cpu")
    assert {n.code for n in full.launches[0].notices} == set()
    assert {r.lines() for r in full.races} == {(4, 4), (4, 5), (5, 5)}


def test_cli_check_with_spec_exit_codes_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "racy.cu").write_text(RACY)
    (tmp_path / "clean.cu").write_text(CLEAN)
    (tmp_path / "spec.toml").write_text(
        '[[launch]]\nkernel = "shift"\ngrid = 1\nblock = 32\n'
        '[launch.args]\na = { dtype = "int32", length = 64 }\nn = 32\n'
    )
    spec = str(tmp_path / "spec.toml")
    assert main(["check", str(tmp_path / "racy.cu"), "--launch", spec, "--backend", "cpu",
                 "--format", "json"]) == 1  # fmt: skip
    out = capsys.readouterr()
    assert json.loads(out.out)["summary"]["races"] == 1 and "backend cpu" in out.err
    assert main(["check", str(tmp_path / "clean.cu"), "--launch", spec, "--backend", "cpu"]) == 0
    capsys.readouterr()
    (tmp_path / "bad.toml").write_text(
        '[[launch]]\nkernel = "shift"\ngrid = 1\nblock = 32\n'
        '[launch.args]\na = { dtype = "int33", length = 4 }\n'
    )
    assert main(["check", str(tmp_path / "clean.cu"), "--launch", str(tmp_path / "bad.toml"),
                 "--backend", "cpu"]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "launch[0].args.a.dtype" in err and len(err.strip().splitlines()) <= 2


@pytest.mark.gpu
def test_racy_kernel_on_cupy() -> None:
    a = np.zeros(64, np.int32)
    report = hirace_py.check(RACY, "shift", 1, 32, [a, 32], backend="cupy")
    assert report.races and report.races[0].lines() == (3, 4)


def test_cupy_backend_without_cupy_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        import cupy  # type: ignore[import-not-found]  # noqa: F401

        pytest.skip("CuPy is installed here")
    except ImportError:
        pass
    (tmp_path / "clean.cu").write_text(CLEAN)
    (tmp_path / "spec.toml").write_text(
        '[[launch]]\nkernel = "shift"\ngrid = 1\nblock = 32\n'
        '[launch.args]\na = { dtype = "int32", length = 64 }\nn = 32\n'
    )
    code = main(["check", str(tmp_path / "clean.cu"), "--launch", str(tmp_path / "spec.toml"),
                 "--backend", "cupy"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 3
    assert "needs CuPy" in err and "pip install '.[gpu]'" in err


def test_racy_launch_returns_the_first_runs_results_despite_the_replay() -> None:
    from hirace_py.backends import cpu

    plain = np.arange(64, dtype=np.int32)[::-1].copy()
    cpu.compile(RACY).launch("shift", 1, 32, [plain, 32])
    checked = np.arange(64, dtype=np.int32)[::-1].copy()
    report = hirace_py.check(RACY, "shift", 1, 32, [checked, 32], backend="cpu")
    assert report.races and report.races[0].exact
    np.testing.assert_array_equal(checked, plain)
    assert not np.array_equal(checked, np.arange(64, dtype=np.int32)[::-1])
