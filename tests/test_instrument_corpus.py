"""The instrumentation corpus: every access form the rewriter handles, checked four ways.

tests/instrument_corpus/ holds small race-free kernels, one theme per file, and
manifest.toml launches each of them. For every file: it instruments with
exactly the expected warnings, and the instrumented source compiles with nvcc
and with the CPU backend. For every launch: the original and the instrumented
kernel compute bit-identical outputs on the CPU backend, and the checker
reports no race (the corpus is race-free, so any race is a false alarm) and no
notices beyond the expected ones.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from hirace_py.checker import Checker
from tests import instrument_harness as harness

CORPUS = harness.CORPUS
FILES = sorted(p.name for p in CORPUS.glob("*.cu"))
CASES = {c.name: c for c in harness.cases()}

# Warning codes each file must produce, exactly (files not listed: none).
EXPECTED_WARNINGS: dict[str, set[str]] = {
    "misc_macros.cu": {"macro"},
    "struct_methods.cu": set(),
    "shared_decls.cu": {"range-for"},
    "misc_untracked.cu": {"bitfield", "untracked-call"},
}

# Notice codes each launch must report, exactly (cases not listed: none).
# `local`: accesses through pointers to the thread's own local memory (a local
# struct's members read in its methods, or a pointer to a local array); none of
# these cases touches memory hirace did not see allocated (`unmonitored`).
EXPECTED_NOTICES: dict[str, set[str]] = {
    "struct_views": {"local"},
    "accumulators": {"local"},
    "scoped_calls": {"local"},
    "local_through_pointer": {"local"},
    "heap_through_pointer": {"unmonitored"},
    "functors": {"local"},  # the functors' own members, read in checked operator()s
    "warp_partial_mask": {"partial-syncwarp"},
}

GLOBAL_DEF = re.compile(r"__global__\s+(?:__launch_bounds__\([^)]*\)\s+)?void\s+(\w+)\s*\(")


def _code(path: Path) -> str:
    """Source without // comments (the file headers mention kernel forms)."""
    return "\n".join(line.split("//", 1)[0] for line in path.read_text().splitlines())


def _checker(path: Path) -> Checker:
    return Checker(path.read_text(), str(path), backend="cpu")


# -- the corpus itself ------------------------------------------------------------


def test_corpus_has_at_least_40_kernels_all_launched() -> None:
    kernels = {(f, k) for f in FILES for k in GLOBAL_DEF.findall(_code(CORPUS / f))}
    assert len(kernels) >= 40, f"only {len(kernels)} __global__ kernels in the corpus"
    launched = {(c.file.name, c.launch.kernel.split("::")[-1]) for c in CASES.values()}
    assert kernels - launched == set(), "kernels no case launches"
    assert launched - kernels == set(), "cases launching kernels that do not exist"


def test_every_file_is_used_and_documented() -> None:
    assert len(CASES) == len(harness.cases()), "case names must be unique"
    used = {c.file.name for c in CASES.values()}
    assert set(FILES) - used == set(), "corpus files no case uses"
    assert used - set(FILES) == set(), "cases naming missing files"
    for f in FILES:
        assert (CORPUS / f).read_text().startswith("//"), f"{f} must start with a comment"
    assert set(EXPECTED_WARNINGS) <= set(FILES)
    assert set(EXPECTED_NOTICES) <= set(CASES)


# -- per file ---------------------------------------------------------------------


@pytest.mark.parametrize("name", FILES)
def test_instruments_with_expected_warnings(name: str) -> None:
    result = harness.instrumented(CORPUS / name)
    codes = {w.code for w in result.tables.warnings}
    assert codes == EXPECTED_WARNINGS.get(name, set()), result.tables.warnings
    assert result.tables.sites, "no access was instrumented"
    assert "hirace::" in result.source


@pytest.mark.parametrize("name", FILES)
def test_instrumented_source_compiles_with_nvcc(name: str, tmp_path: Path) -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not installed")
    source = harness.instrumented(CORPUS / name).source
    proc = harness.nvcc_compile(source, Path(name).stem, tmp_path)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("name", FILES)
def test_instrumented_source_compiles_with_cpu_backend(name: str) -> None:
    path = CORPUS / name
    module = harness.instrumented_module(path)
    kernels = set(GLOBAL_DEF.findall(_code(path)))
    assert kernels <= {k.split("::")[-1] for k in module.kernels}
    harness.original_module(path)


# -- per launch -------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CASES))
def test_instrumented_kernel_computes_the_same(name: str) -> None:
    case = CASES[name]
    tables = harness.instrumented(case.file).tables
    kernel_params = tables.kernel(case.launch.kernel).params
    params = [p.name for p in kernel_params]
    inputs = case.launch.build_args(kernel_params, name)
    original = harness.run(harness.original_module(case.file), case)
    rewritten = harness.run(harness.instrumented_module(case.file), case)
    for param, a, b in zip(params, original, rewritten, strict=True):
        assert harness.same(a, b), f"{name}: argument {param} differs"
    changed = [
        a for a, before in zip(original, inputs, strict=True)
        if isinstance(a, np.ndarray) and not harness.same(a, before)
    ]  # fmt: skip
    assert changed, f"{name}: the kernel changed none of its arrays"
    assert any(a.any() for a in changed), f"{name}: every output is all zeros"


@pytest.mark.parametrize("name", sorted(CASES))
def test_checker_reports_no_race(name: str) -> None:
    case = CASES[name]
    checker = _checker(case.file)
    spec = case.launch
    params = checker.tables.kernel(spec.kernel).params
    report = checker.launch(spec.kernel, spec.config, spec.build_args(params, name))
    assert report.races == [], [
        (r.kind, r.variable, r.first.site, r.second.site) for r in report.races
    ]
    assert {n.code for n in report.notices} == EXPECTED_NOTICES.get(name, set()), [
        n.message for n in report.notices
    ]
    assert report.counters.get("races", 0) == 0
