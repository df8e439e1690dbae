"""Whole CUDA programs: instrument, build (nvcc, or the CPU backend), run, report.

The programs and what each must do are in tests/programs/ (its README gives
the case schema). Each case is built for the CPU twice, with and without
instrumentation, once per test module; the binaries are then run under the
environment variables the host runtime reads, and the dump an instrumented
one writes (HIRACE_DUMP) is rendered as `hirace report` does.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from hirace_py import cli, cuda_api, dump, program
from hirace_py.backends import cpu_program
from hirace_py.instrument import instrument
from hirace_py.program import BuildOptions
from hirace_py.report import to_json, to_text

PROGRAMS = Path(__file__).parent / "programs"
# What a race is compared by: file, the two lines (sorted), kind, space.
RaceKey = tuple[str, tuple[int, int], str, str]


@dataclass(frozen=True)
class Case:
    name: str
    directory: Path
    sources: tuple[str, ...]
    args: tuple[str, ...]
    defines: dict[str, str | None]
    exit: int
    stdout: str
    stderr_regex: str | None
    races: frozenset[RaceKey]
    notices: frozenset[str]
    env: dict[str, str]
    requires: str | None


def _case(path: Path) -> Case:
    doc = tomllib.loads(path.read_text())
    defines: dict[str, str | None] = {}
    for d in doc.get("defines", []):
        name, eq, value = d.partition("=")
        defines[name] = value if eq else None
    races = frozenset(
        (r["file"], tuple(sorted(r["lines"])), r["kind"], r["space"]) for r in doc["races"]
    )
    return Case(
        name=f"{path.parent.name}/{path.stem}",
        directory=path.parent,
        sources=tuple(doc["sources"]),
        args=tuple(doc.get("args", [])),
        defines=defines,
        exit=doc["exit"],
        stdout=doc["stdout"],
        stderr_regex=doc.get("stderr_regex"),
        races=races,  # type: ignore[arg-type]
        notices=frozenset(doc.get("notices", [])),
        env=dict(doc.get("env", {})),
        requires=doc.get("requires"),
    )


def _param(case: Case) -> object:
    """`case` as a test parameter, skipped where what it requires is missing
    (`requires = "toolkit"`: it includes toolkit headers the parse reads from
    the CUDA toolkit, such as <cooperative_groups.h>)."""
    missing = case.requires == "toolkit" and cuda_api.toolkit_include() is None
    return pytest.param(case, id=case.name, marks=pytest.mark.skipif(
        missing, reason="needs the CUDA toolkit's headers"))  # fmt: skip


CASES = [_case(p) for p in sorted(PROGRAMS.glob("*/*.toml"))]
PARAMS = [_param(c) for c in CASES]
NEEDS_NVCC = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


def _options(case: Case, output: Path, cpu: bool = True, instrument: bool = True) -> BuildOptions:
    """Options for building `case` from its directory (see `_build`): its sources are
    named as a user in that directory names them, and so are they in reports."""
    return BuildOptions(
        sources=tuple(Path(s) for s in case.sources),
        output=output,
        cpu=cpu,
        defines=dict(case.defines),
        instrument=instrument,
    )


def _build(case: Case, options: BuildOptions) -> program.Built:
    old = os.getcwd()
    os.chdir(case.directory)
    try:
        return program.build(options)
    finally:
        os.chdir(old)


class Builds:
    """Each case built once per module: instrumented and original, for the CPU."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.done: dict[tuple[str, bool], Path] = {}

    def get(self, case: Case, instrumented: bool = True) -> Path:
        key = (case.name, instrumented)
        if key not in self.done:
            kind = "hirace" if instrumented else "original"
            output = self.root / case.name.replace("/", "-") / kind
            _build(case, _options(case, output, instrument=instrumented))
            self.done[key] = output
        return self.done[key]


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> Builds:
    return Builds(tmp_path_factory.mktemp("programs"))


def _run(executable: Path, args: tuple[str, ...], **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    return subprocess.run([str(executable), *args], capture_output=True, text=True, timeout=300,
                          env={**clean, **env}, check=False)  # fmt: skip


_RACE = re.compile(r"^========= Race \(([\w-]+)\) on (\w+) memory: ")
_SITE = re.compile(r"^=========     (?:Earlier|Racing ) \S+.*? at ([^\s:]+):(\d+):\d+ in \S+ by ")
_NOTICE = re.compile(r"^========= Warning \[([\w-]+)\]")


def _dumped(executable: Path, args: tuple[str, ...], where: Path,
            **env: str) -> tuple[subprocess.CompletedProcess[str], str, str]:  # fmt: skip
    """Run the program writing its dump; its run, and the report as text and as JSON."""
    path = where / "dump.json"
    run = _run(executable, args, **env, HIRACE_DUMP=str(path))
    report = dump.load(path)
    return run, to_text(report), to_json(report)


def text_report(stderr: str) -> tuple[set[RaceKey], set[str]]:
    """The races and notice codes of a text report."""
    races: set[RaceKey] = set()
    notices: set[str] = set()
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if m := _NOTICE.match(line):
            notices.add(m.group(1))
        if not (m := _RACE.match(line)):
            continue
        block = itertools.takewhile(lambda text: not _RACE.match(text), lines[i + 1 : i + 5])
        sites = [s for s in map(_SITE.match, block) if s]
        assert len(sites) == 2, f"race without both sites in:\n{stderr}"
        (f1, l1), (f2, l2) = (s.groups() for s in sites)
        assert f1 == f2, f"a race across files: {line}"
        races.add((f1, tuple(sorted((int(l1), int(l2)))), m.group(1), m.group(2)))  # type: ignore[arg-type]
    return races, notices


def json_report(text: str) -> tuple[set[RaceKey], set[str]]:
    doc = json.loads(text)
    races: set[RaceKey] = set()
    notices = {n["code"] for n in doc["notices"]}
    for launch in doc["launches"]:
        notices |= {n["code"] for n in launch["notices"]}
        for r in launch["races"]:
            first, second = r["first"]["site"], r["second"]["site"]
            lines = tuple(sorted((first["line"], second["line"])))
            races.add((second["file"], lines, r["kind"], r["space"]))  # type: ignore[arg-type]
    return races, notices


# ---------------------------------------------------------------------------
# The programs.


def test_there_are_programs_enough() -> None:
    assert len({c.directory for c in CASES}) >= 8
    assert any(len(c.sources) > 1 for c in CASES)
    assert any(c.races for c in CASES) and any(not c.races for c in CASES)


@pytest.mark.parametrize("case", PARAMS)
def test_instrumented_program_reports_its_races(case: Case, builds: Builds, tmp_path: Path) -> None:
    run, text, _ = _dumped(builds.get(case), case.args, tmp_path, **case.env)
    assert (run.returncode, run.stdout) == (case.exit, case.stdout), run.stderr
    assert re.search(r"^========= RACE SUMMARY: \d+ race\(s\) in \d+ launch\(es\)$", text,
                     re.M), text  # fmt: skip
    races, notices = text_report(text)
    assert races == case.races, text
    assert notices == case.notices, text
    if case.stderr_regex:
        assert re.search(case.stderr_regex, run.stderr), run.stderr


@pytest.mark.parametrize("case", PARAMS)
def test_json_report_has_the_same_races(case: Case, builds: Builds, tmp_path: Path) -> None:
    run, _, json_text = _dumped(builds.get(case), case.args, tmp_path, **case.env)
    assert run.returncode == case.exit, run.stderr
    assert json_report(json_text) == (set(case.races), set(case.notices))


@pytest.mark.parametrize("case", PARAMS)
def test_without_a_dump_one_line_says_how_to_get_the_report(case: Case, builds: Builds) -> None:
    run = _run(builds.get(case), case.args, **case.env)
    assert (run.returncode, run.stdout) == (case.exit, case.stdout), run.stderr
    [line] = [x for x in run.stderr.splitlines() if x.startswith("========= HIRACE")]
    records = int(re.search(r": (\d+) race record\(s\)", line).group(1))  # type: ignore[union-attr]
    assert (records > 0) == bool(case.races), line
    assert "HIRACE_DUMP=FILE" in line


@pytest.mark.parametrize("case", PARAMS)
def test_exitcode_one_on_races_only(case: Case, builds: Builds) -> None:
    run = _run(builds.get(case), case.args, **case.env, HIRACE_EXITCODE="1")
    assert run.returncode == (1 if case.races else case.exit), run.stderr
    assert run.stdout == case.stdout


@pytest.mark.parametrize("case", PARAMS)
def test_original_program_prints_the_same(case: Case, builds: Builds) -> None:
    run = _run(builds.get(case, instrumented=False), case.args, **case.env)
    assert (run.returncode, run.stdout) == (case.exit, case.stdout), run.stderr
    assert "========= HIRACE" not in run.stderr
    if case.stderr_regex:
        assert re.search(case.stderr_regex, run.stderr), run.stderr


@NEEDS_NVCC
@pytest.mark.parametrize("case", PARAMS)
def test_nvcc_builds_the_instrumented_program(case: Case, tmp_path: Path) -> None:
    built = _build(case, _options(case, tmp_path / "gpu", cpu=False))
    assert built.executable.is_file()
    sources = tuple(case.directory / s for s in case.sources)
    included = program.included_sources(sources, ())
    units = [s for s in sources if s not in included]
    assert [p.name for p in built.compiled] == [f"{s.stem}.hirace.cu" for s in units]


# ---------------------------------------------------------------------------
# The commands.


def test_build_reports_a_syntax_error_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "bad.cu"
    source.write_text("__global__ void k(int* a) {\n  a[0] = 1\n}\nint main() { return 0; }\n")
    for extra in ([], ["--no-instrument"]):
        status = cli.main(["build", "--cpu", *extra, str(source), "-o", str(tmp_path / "bad")])
        err = capsys.readouterr().err
        assert status == 2, err
        assert err.startswith("hirace: error: ") and "bad.cu:2" in err, err


def test_build_reports_a_missing_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.cu"
    status = cli.main(["build", "--cpu", str(missing), "-o", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert status == 2
    assert err == f"hirace: error: {missing}: no such source file\n"


def test_build_writes_the_instrumented_sources_next_to_the_output(tmp_path: Path) -> None:
    case = next(c for c in CASES if c.name == "multifile/multifile")
    output = tmp_path / "out" / "prog"
    built = _build(case, _options(case, output))
    work = tmp_path / "out" / "prog.hirace"
    assert built.work_dir == work and output.is_file()
    for s in case.sources:
        text = (work / f"{Path(s).stem}.hirace.cu").read_text()
        assert text.startswith("#define HIRACE_PROGRAM 1\n")
    assert (work / "include" / "hirace_runtime.cuh").is_file()


def _hirace(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    return subprocess.run([sys.executable, "-m", "hirace_py.cli", *args], capture_output=True,
                          text=True, timeout=600, env={**clean, **env}, check=False)  # fmt: skip


def test_run_passes_arguments_and_the_exit_status() -> None:
    fresh = PROGRAMS / "fresh" / "fresh.cu"
    run = _hirace("run", str(fresh), "--cpu", "--", "50", "3")
    expected = "3 rounds over 50 elements: checksum 1626592930984861199\n"
    assert (run.returncode, run.stdout) == (0, expected), run.stderr
    devquery = PROGRAMS / "devquery" / "devquery.cu"
    assert _hirace("run", "--cpu", str(devquery)).returncode == 3


def test_run_exits_one_on_races() -> None:
    reduce = PROGRAMS / "reduce" / "reduce.cu"
    run = _hirace("run", "--cpu", str(reduce))
    assert run.returncode == 1, run.stderr
    assert "Race (read-write) on shared memory" in run.stderr
    fixed = _hirace("run", "--cpu", str(reduce), "-D", "FIXED")
    assert fixed.returncode == 0, fixed.stderr


def test_run_says_where_it_runs(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("hirace_py.commands.run.program_gpu_status", lambda: (False, "no GPU here"))
    fresh = PROGRAMS / "fresh" / "fresh.cu"
    assert cli.main(["run", str(fresh), "--", "10", "1"]) == 0
    out, err = capfd.readouterr()
    assert "hirace: running on the CPU backend (no GPU here)" in err
    assert out == "1 rounds over 10 elements: checksum 910698096645\n"


def test_run_rejects_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "--cpu"]) == 2
    assert "no source files" in capsys.readouterr().err
    assert cli.main(["run", "x.cu", "--bogus"]) == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Pieces.


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("k<<<1, 2>>>(a, b);", "::hr::launch(k, 1, 2)(a, b);"),
        ("ns::k<float, 4><<<g, b, 0, s>>>(x);", "::hr::launch(ns::k<float, 4>, g, b, 0, s)(x);"),
        ("return ::k<<<g, b>>>();", "return ::hr::launch(::k, g, b)();"),
        ("(k)<<<1, 1>>>();", "::hr::launch((k), 1, 1)();"),
        ("k<<<(n + 1) / 2, dim3(4, 4)>>>(f(a), c[i]);",
         "::hr::launch(k, (n + 1) / 2, dim3(4, 4))(f(a), c[i]);"),
        ("#define L(k) k<<<1, 32>>>()", "#define L(k) ::hr::launch(k, 1, 32)()"),
        ("x = a << b; y = a <<= 2; // k<<<1,1>>>()", "x = a << b; y = a <<= 2; // k<<<1,1>>>()"),
        ('s = "k<<<1,1>>>()";', 's = "k<<<1,1>>>()";'),
        ("k<<<\n  1, 2>>>(a);", "::hr::launch(k, \n  1, 2)(a);"),
        ("t[i]<<<1, 2>>>(a);", "::hr::launch(t[i], 1, 2)(a);"),
        ("ks[f(i)][1]<<<1, 2>>>(a);", "::hr::launch(ks[f(i)][1], 1, 2)(a);"),
    ],
)  # fmt: skip
def test_rewrite_launches(source: str, expected: str) -> None:
    assert cpu_program.rewrite_launches(source) == expected


def test_parse_prelude_declares_the_cpu_runtime_api() -> None:
    """Every runtime function and error code programs get on the CPU also parses
    for instrumentation."""
    header = cpu_program.render_program(cpu_program.PROGRAM_HEADER)
    prelude = cuda_api.prelude()
    declared = {n for n in re.findall(r"\b(cuda[A-Z]\w*)\s*\(", header) if not n.endswith("_t")}
    assert len(declared) > 60
    missing = sorted(n for n in declared if not re.search(rf"\b{n}\s*\(", prelude))
    assert missing == []
    for name, value, _ in cpu_program.ERRORS:
        assert f"{name} = {value}" in prelude


def test_allocations_in_macro_arguments_are_rewritten_where_spelled() -> None:
    source = """#include <cstdio>
#define CHECK(x) do { if ((x) != cudaSuccess) return 1; } while (0)
#define SHOW(x) printf("%s\\n", #x), (void)(x)
#define ALLOC(p, n) cudaMalloc(&p, n)
__global__ void k(float* a) { a[threadIdx.x] = 1; }
int main() {
  float *a, *b, *c;
  CHECK(cudaMalloc(&a, 64 * sizeof(float)));
  SHOW(cudaMalloc((void**)&b, 8));
  ALLOC(c, 16);
  k<<<1, 16>>>(a);
  CHECK(cudaFree(a));
  return 0;
}
"""
    result = instrument(source, "m.cu", target="cpu")
    assert ('CHECK(hirace::host::cudaMalloc(HIRACE_AT("m.cu", 8u, 9u, "main", false), 2u, "a", '
            "&a, 64 * sizeof(float)));") in result.source  # fmt: skip
    assert ('SHOW(hirace::host::cudaMalloc(HIRACE_AT("m.cu", 9u, 8u, "main", false), 2u, "b", '
            "(void**)&b, 8));") in result.source  # fmt: skip
    assert "ALLOC(c, 16);" in result.source
    free = 'CHECK(hirace::host::cudaFree(HIRACE_AT("m.cu", 12u, 9u, "main", false), a));'
    assert free in result.source
    warnings = [(w.line, w.code, w.message) for w in result.tables.warnings]
    assert (9, "allocation", "macro 'SHOW' turns its argument into text (#): that text now "
            "shows hirace's rewrite of 'cudaMalloc'") in warnings  # fmt: skip
    assert any(line == 10 and code == "allocation" and "macro definition" in message
               for line, code, message in warnings)  # fmt: skip


USAGE = """\
#include <cstdio>
#include <unistd.h>
__global__ void k(int* a) { a[0] = threadIdx.x; }
int main(int argc, char** argv) {
  if (argc < 2) { printf("usage: %s N\\n", argv[0]); return 4; }
  if (argv[1][0] == 'q') _exit(0);
  int* d;
  cudaMalloc(&d, sizeof(int));
  k<<<1, 2>>>(d);
  cudaDeviceSynchronize();
  return 0;
}
"""


def test_a_program_that_exits_before_any_cuda_call_has_an_empty_report(tmp_path: Path) -> None:
    """Its exit handlers ran, so its report is written (0 launches) and its own status
    stands; only a program that never reaches exit() (here `_exit`) has none."""
    source = tmp_path / "usage.cu"
    source.write_text(USAGE)
    usage = _hirace("run", "--cpu", str(source))
    assert usage.returncode == 4 and usage.stdout.startswith("usage: "), usage.stderr
    assert "0 race(s) in 0 launch(es)" in usage.stderr
    assert "before writing" not in usage.stderr
    racy = _hirace("run", "--cpu", str(source), "--", "1")
    assert racy.returncode == 1 and "1 race(s) in 1 launch(es)" in racy.stderr, racy.stderr
    quick = _hirace("run", "--cpu", str(source), "--", "q")
    assert "ended with status 0 before writing its race records" in quick.stderr
