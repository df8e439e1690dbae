"""The Indigo-style mini-suite: names, labels, generator, driver, compilation."""

from __future__ import annotations

import ctypes
import ctypes.util
import difflib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

import pytest

from hirace_py.indigo.ecl import read_ecl
from hirace_py.indigo.properties import MINISUITE_NEEDS, minisuite_qualifies

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "indigo" / "minisuite"
GRAPHS = ROOT / "indigo" / "graphs"

BUG_TAGS = ("atomicBug", "raceBug", "syncBug", "guardBug", "boundsBug")
RACE_TAGS = BUG_TAGS[:4]
OPTION_TAGS = ("warp", "block", "shfl", "persistent", "reverse", "cond")
PATTERNS = ("push", "pull", "edge", "maxprop", "degree", "relax")
KINDS = ("read-write", "write-write", "atomic-plain")

CODES = sorted(p.stem for p in SUITE.glob("*.cu"))
LABELS = tomllib.loads((SUITE / "labels.toml").read_text())["code"]
BY_NAME = {c["name"]: c for c in LABELS}
SHIPPED = sorted(GRAPHS.glob("*.egr"))


def parse_name(name: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """Split a code name into pattern, options and bug tags (canonical order)."""
    pattern, *tags = name.split("_")
    options = tuple(t for t in tags if t in OPTION_TAGS)
    bugs = tuple(t for t in tags if t in BUG_TAGS)
    unknown = [t for t in tags if t not in OPTION_TAGS and t not in BUG_TAGS]
    assert not unknown, f"{name}: unknown tags {unknown}"
    assert list(tags) == [*options, *bugs], f"{name}: options must precede bugs"
    assert list(options) == sorted(options, key=OPTION_TAGS.index), f"{name}: option order"
    assert list(bugs) == sorted(bugs, key=BUG_TAGS.index), f"{name}: bug order"
    assert pattern in PATTERNS, f"{name}: unknown pattern {pattern}"
    return pattern, options, bugs


def source(name: str) -> str:
    return (SUITE / f"{name}.cu").read_text()


# ---------------------------------------------------------------- names and coverage


def test_suite_size_and_patterns() -> None:
    assert len(CODES) >= 40
    patterns = {parse_name(n)[0] for n in CODES}
    assert len(patterns) >= 6


def test_every_name_parses() -> None:
    for name in CODES:
        parse_name(name)


def test_every_pattern_has_race_free_and_every_bug_tag() -> None:
    for pattern in {parse_name(n)[0] for n in CODES}:
        names = [n for n in CODES if parse_name(n)[0] == pattern]
        assert any(not parse_name(n)[2] for n in names), f"{pattern}: no race-free code"
        for tag in BUG_TAGS:
            assert any(tag in parse_name(n)[2] for n in names), f"{pattern}: no {tag}"


def test_every_option_set_has_a_race_free_base() -> None:
    for name in CODES:
        pattern, options, _ = parse_name(name)
        base = "_".join((pattern, *options))
        assert base in CODES, f"{name}: no race-free {base}"


def test_several_element_types() -> None:
    types = {c["data_t"] for c in LABELS}
    assert {"int", "float", "unsigned long long"} <= types


# ---------------------------------------------------------------- labels


def test_labels_agree_with_file_names() -> None:
    assert sorted(BY_NAME) == CODES
    assert len(LABELS) == len(BY_NAME)
    for name in CODES:
        label = BY_NAME[name]
        pattern, options, bugs = parse_name(name)
        assert label["file"] == f"{name}.cu"
        assert label["pattern"] == pattern
        assert tuple(label["options"]) == options
        assert tuple(label["bugs"]) == bugs
        races = label.get("race", [])
        assert label["racy"] == any(t in RACE_TAGS for t in bugs)
        assert sorted(r["tag"] for r in races) == sorted(t for t in bugs if t in RACE_TAGS)
        assert bool(label.get("bounds")) == ("boundsBug" in bugs)


@pytest.mark.parametrize("name", CODES)
def test_code_shape_matches_label(name: str) -> None:
    text = source(name)
    m = re.search(r"^typedef (.+) data_t;$", text, re.M)
    assert m and m.group(1) == BY_NAME[name]["data_t"]
    assert text.index("typedef") < text.index('#include "indigo_cuda.h"')
    for signature in (
        "__global__ void test_kernel(int* nindex, int* nlist, data_t* data1, data_t* data2, "
        "int numv)",
        "void serial_code(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)",
        "int verify_result(int* nindex, int* nlist, data_t* data1, data_t* data2, data_t* ref1, "
        "data_t* ref2, int numv)",
    ):
        assert text.count(signature) == 1, f"{name}: missing {signature}"


@pytest.mark.parametrize("name", [n for n in CODES if parse_name(n)[2]])
def test_label_lines_point_at_the_planted_accesses(name: str) -> None:
    lines = source(name).splitlines()
    label = BY_NAME[name]
    for race in label.get("race", []):
        assert race["space"] in ("global", "shared")
        assert race["description"]
        assert race["pairs"]
        for pair in race["pairs"]:
            assert pair["kind"] in KINDS
            assert set(pair["needs"]) <= set(MINISUITE_NEEDS)
            for number in pair["lines"]:
                assert 1 <= number <= len(lines)
                code = lines[number - 1].split("//")[0]
                assert re.search(rf"\b{race['variable']}\b", code), (name, number, code)
        if race["space"] == "shared":
            assert re.search(rf"__shared__ .*\b{race['variable']}\b", "\n".join(lines))
    for bounds in label.get("bounds", []):
        code = lines[bounds["line"] - 1]
        assert bounds["array"] in code and "<=" in code
        assert set(bounds["needs"]) <= set(MINISUITE_NEEDS)


@pytest.mark.parametrize("name", [n for n in CODES if parse_name(n)[2]])
def test_bug_variant_differs_from_base_only_at_the_bug(name: str) -> None:
    pattern, options, bugs = parse_name(name)
    base = "_".join((pattern, *options))
    a = source(base).splitlines()[1:]
    b = source(name).splitlines()[1:]
    changed = [ln for ln in difflib.unified_diff(a, b, n=0, lineterm="") if ln[:1] in "+-"]
    changed = [ln for ln in changed if not ln.startswith(("+++", "---"))]
    assert 1 <= len(changed) <= 3 * len(bugs), changed
    assert source(base).count("\n") - source(name).count("\n") == sum(t == "syncBug" for t in bugs)


def test_labels_put_races_only_in_racy_codes() -> None:
    for label in LABELS:
        if not label["bugs"]:
            assert not label["racy"] and "race" not in label and "bounds" not in label


# ---------------------------------------------------------------- manifestation


# The one planted race whose own bounds bug can hide it (indigo/minisuite/README.md).
LOOKAHEAD = "edge_persistent_atomicBug_boundsBug"


def test_every_planted_bug_happens_on_every_qualifying_graph() -> None:
    graphs = {p.name: read_ecl(p) for p in SHIPPED}
    qualifying = [g for g in graphs.values() if minisuite_qualifies(g)]
    assert len(qualifying) >= len(graphs) // 2 + 1
    for label in LABELS:
        for race in label.get("race", []):
            for g in qualifying:
                happens = any(all(MINISUITE_NEEDS[n](g) for n in p["needs"]) for p in race["pairs"])
                assert happens or label["name"] == LOOKAHEAD
        for bounds in label.get("bounds", []):
            for g in qualifying:
                assert all(MINISUITE_NEEDS[n](g) for n in bounds["needs"])


def test_needs_predicates() -> None:
    tree = read_ecl(GRAPHS / "binary_tree_7.egr")
    empty = read_ecl(GRAPHS / "empty_10.egr")
    star = read_ecl(GRAPHS / "star_8.egr")
    dag = read_ecl(GRAPHS / "dag_60.egr")
    assert MINISUITE_NEEDS["outdeg2"](tree) and not MINISUITE_NEEDS["shared_nbr"](tree)
    assert MINISUITE_NEEDS["two_nodes"](empty) and not MINISUITE_NEEDS["edge"](empty)
    assert all(pred(dag) for pred in MINISUITE_NEEDS.values())
    # A star shares the centre, but the buggy look-ahead skips all edges into it but one.
    assert MINISUITE_NEEDS["shared_nbr"](star) and not MINISUITE_NEEDS["lookahead_shared_nbr"](star)


def test_lookahead_label_is_the_only_one_failing_on_stars() -> None:
    star = read_ecl(GRAPHS / "star_60.egr")
    failing = {
        label["name"]
        for label in LABELS
        for race in label.get("race", [])
        if not any(all(MINISUITE_NEEDS[n](star) for n in p["needs"]) for p in race["pairs"])
    }
    assert failing == {LOOKAHEAD}


# ---------------------------------------------------------------- generator


def load_generator() -> ModuleType:
    """indigo/minisuite/generate.py as a module (it is a script, not in the package)."""
    name = "hirace_minisuite_generate"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SUITE / "generate.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses resolve annotations through sys.modules
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_generator_reproduces_the_suite() -> None:
    files = load_generator().build_suite()
    assert sorted(n[:-3] for n in files if n.endswith(".cu")) == CODES
    for name, text in files.items():
        assert (SUITE / name).read_text() == text, f"{name} is out of date: run generate.py"


def test_generator_vocabulary_matches_tests() -> None:
    gen = load_generator()
    assert gen.BUG_TAGS == BUG_TAGS
    assert gen.OPTION_TAGS == OPTION_TAGS
    assert set(gen.PATTERNS) == set(PATTERNS)
    assert set(gen.NEEDS) == set(MINISUITE_NEEDS)


# ---------------------------------------------------------------- compilers

NVCC = shutil.which("nvcc")
GXX = shutil.which("g++")


def _parallel(jobs: dict[str, list[str]], cwd: Path) -> dict[str, subprocess.CompletedProcess]:
    def run(argv: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return dict(zip(jobs, pool.map(run, jobs.values()), strict=True))


@pytest.fixture(scope="module")
def nvcc_results(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, subprocess.CompletedProcess]:
    if NVCC is None:
        pytest.skip("nvcc not installed")
    out = tmp_path_factory.mktemp("nvcc")
    jobs = {
        n: [NVCC, "-c", "-arch=sm_80", str(SUITE / f"{n}.cu"), "-o", str(out / f"{n}.o")]
        for n in CODES
    }
    return _parallel(jobs, SUITE)


@pytest.mark.parametrize("name", CODES)
def test_compiles_with_nvcc(nvcc_results: dict[str, subprocess.CompletedProcess], name: str):
    result = nvcc_results[name]
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr.lower(), result.stderr


@pytest.fixture(scope="module")
def host_binaries(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if GXX is None:
        pytest.skip("g++ not installed")
    out = tmp_path_factory.mktemp("host")
    jobs = {
        n: [
            GXX,
            "-std=c++17",
            "-O1",
            "-x",
            "c++",
            "-include",
            "host_shim.h",
            f"{n}.cu",
            "-o",
            str(out / n),
        ]
        for n in CODES
    }
    results = _parallel(jobs, SUITE)
    for name, result in results.items():
        assert result.returncode == 0, f"{name}: {result.stderr}"
    return {n: out / n for n in CODES}


@pytest.mark.parametrize("name", CODES)
def test_serial_code_accepted_by_verify_result(host_binaries: dict[str, Path], name: str):
    for graph in SHIPPED:
        result = subprocess.run(
            [str(host_binaries[name]), str(graph)], capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0, f"{graph.name}: {result.stdout}{result.stderr}"
        assert "accepts serial result: yes" in result.stdout


INIT_PROBE = """
typedef long long data_t;
#include "indigo_cuda.h"
__global__ void test_kernel(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv) {}
void serial_code(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)
{
  static int calls = 0;
  if (calls++ > 0) return;
  const int size = std::max(numv, std::max(nindex[numv], 1));
  printf("%d\\n", size);
  for (int i = 0; i < size; i++) printf("%lld ", data1[i]);
  printf("\\n");
  for (int i = 0; i < size; i++) printf("%lld ", data2[i]);
  printf("\\n");
}
int verify_result(int* nindex, int* nlist, data_t* data1, data_t* data2, data_t* ref1,
                  data_t* ref2, int numv)
{
  static int calls = 0;
  return calls++ == 0;
}
"""


@pytest.mark.parametrize("graph", ["dag_60.egr", "binary_tree_7.egr", "empty_10.egr"])
def test_driver_initialises_data_as_design_says(tmp_path: Path, graph: str) -> None:
    if GXX is None:
        pytest.skip("g++ not installed")
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        pytest.skip("no C library to replay rand()")
    probe = tmp_path / "probe.cu"
    probe.write_text(INIT_PROBE)
    exe = tmp_path / "probe"
    subprocess.run(
        [
            GXX,
            "-x",
            "c++",
            "-I",
            str(SUITE),
            "-include",
            str(SUITE / "host_shim.h"),
            str(probe),
            "-o",
            str(exe),
        ],
        check=True,
        capture_output=True,
    )
    run = subprocess.run([str(exe), str(GRAPHS / graph)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    size_line, d1_line, d2_line = run.stdout.splitlines()[:3]
    g = read_ecl(GRAPHS / graph)
    edges = max(g.edges, 1)
    size = max(g.nodes, edges)
    assert int(size_line) == size
    libc = ctypes.CDLL(libc_name)
    libc.srand(1)  # the C library's default seed
    data1 = [0] + [libc.rand() % g.nodes for _ in range(1, size)]
    data2 = [0] + [libc.rand() % edges for _ in range(1, size)]
    assert [int(x) for x in d1_line.split()] == data1
    assert [int(x) for x in d2_line.split()] == data2
