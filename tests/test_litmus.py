"""The litmus suite against its manifest: every expected race found, no false alarm.

This is issue 6's acceptance check: `hirace check kernels/` on the CPU
backend (in CI), and the same on the CuPy backend where a GPU is present.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hirace_py import litmus
from hirace_py.cli import main

KERNELS = Path(__file__).parent.parent / "kernels"


@pytest.fixture(scope="module")
def cpu_results() -> list[litmus.Result]:
    return litmus.run(KERNELS, backend="cpu")


def test_every_case_matches_its_manifest_on_cpu(cpu_results: list[litmus.Result]) -> None:
    failures = [r for r in cpu_results if not r.ok]
    assert not failures, litmus.table(failures)
    assert len(cpu_results) >= 40


def test_suite_has_racy_and_race_free_cases_and_reports_both(
    cpu_results: list[litmus.Result],
) -> None:
    racy = [r for r in cpu_results if r.case.expect == "race"]
    clean = [r for r in cpu_results if r.case.expect == "race-free"]
    assert len(racy) >= 20 and len(clean) >= 20
    assert all(r.found for r in racy) and not any(r.found for r in clean)


def test_cli_prints_the_table_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(KERNELS), "--backend", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "cases pass; 0 missed race(s), 0 false alarm(s), 0 error(s)" in out


def test_a_wrong_expectation_fails_the_suite(tmp_path: Path) -> None:
    """The comparison can fail: flip one case's expectation and the suite reports it."""
    (tmp_path / "k.cu").write_text((KERNELS / "paper" / "listing1.cu").read_text())
    (tmp_path / "manifest.toml").write_text(
        '[[case]]\nname = "flipped"\nfile = "k.cu"\nkernel = "listing1"\ngrid = 2\n'
        'block = 64\nargs = { a = { dtype = "int32", length = 128, init = "arange" }, n = 128 }\n'
        'expect = "race-free"\n'
    )
    results = litmus.run(tmp_path, backend="cpu")
    assert len(results) == 1 and not results[0].ok and results[0].false_alarms
    assert main(["check", str(tmp_path), "--backend", "cpu"]) == 1


@pytest.mark.gpu
def test_every_case_matches_its_manifest_on_cupy() -> None:
    results = litmus.run(KERNELS, backend="cupy")
    failures = [r for r in results if not r.ok]
    assert not failures, litmus.table(failures)
