"""The host-device test programs (tests/hostdev/): each built for the CPU
backend, correct and with each planted bug, run with HIRACE_DUMP, and its
report compared with tests/hostdev/expected.toml: exactly the planted
findings, with their buffers, byte ranges and both lines; no races. The
instrumented programs also compile with nvcc -c (where nvcc is installed)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from hirace_py import dump, program
from hirace_py.hostdev import events as ev
from hirace_py.hostdev import load
from hirace_py.hostdev.findings import analyse
from hirace_py.instrument import instrument
from hirace_py.instrument.runtime import include_dir
from hirace_py.program import BuildOptions
from hirace_py.report import to_text

HERE = Path(__file__).parent / "hostdev"
CASES = tomllib.loads((HERE / "expected.toml").read_text())["case"]


def _id(case: dict) -> str:
    return f"{case['source']}:{case.get('define', 'correct')}"


def _run(case: dict, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    define = case.get("define")
    out = tmp_path / "app"
    old = os.getcwd()
    os.chdir(HERE)
    try:
        program.build(BuildOptions(sources=(Path(case["source"]),), output=out, cpu=True,
                                   defines={define: None} if define else {}))  # fmt: skip
    finally:
        os.chdir(old)
    path = tmp_path / "dump.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    run = subprocess.run([str(out)], capture_output=True, text=True, timeout=120, cwd=HERE,
                         env={**env, "HIRACE_DUMP": str(path)}, check=False)  # fmt: skip
    return run, path


def test_every_finding_kind_has_a_buggy_and_a_correct_program():
    kinds = {f["kind"] for c in CASES for f in c["findings"]}
    assert kinds == {"host-device-race", "uninitialised-read", "stale-host-data",
                     "stale-device-data", "out-of-bounds-copy", "bad-free", "leak",
                     "ignored-error"}  # fmt: skip
    sources = {c["source"] for c in CASES}
    assert all(any(c["source"] == s and not c["findings"] for c in CASES) for s in sources)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_program_reports_exactly_its_planted_findings(case: dict, tmp_path: Path):
    run, path = _run(case, tmp_path)
    assert run.returncode == 0, run.stderr
    report = dump.load(path)
    text = to_text(report)
    assert report.races == [], text
    got = [{"kind": f.kind, "buffer": f.buffer, "bytes": [f.lo, f.hi],
            "lines": [f.first.line if f.first else 0, f.second.line]}
           for f in report.host]  # fmt: skip
    assert got == case["findings"], text
    assert all(f.second.file == case["source"] for f in report.host)
    assert int(report.exit_status) == (1 if case["findings"] else 0)
    # Without host-device findings (the suite runner's load), the launches are the same.
    lean = dump.load(path, host=False)
    assert lean.host == []
    assert [launch.to_json() for launch in lean.launches] == [
        launch.to_json() for launch in report.launches]
    assert lean.notices == report.notices


@pytest.fixture(scope="module")
def thread_dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """The dumps of the correct multi-threaded programs."""
    out = {}
    for source in ("threads.cu", "pthreads.cu"):
        run, path = _run({"source": source}, tmp_path_factory.mktemp(source.replace(".", "_")))
        assert run.returncode == 0, run.stderr
        out[source] = dump.read_document(path)
    return out


# Creations are not in the list: a thread whose creation the record lacks is
# taken to start after everything recorded before its first operation (rule
# 10's edge for threads created where hirace does not see it), which orders
# these programs too. What a recorded creation orders, and what it does not,
# is checked against the brute-force reference in tests/test_hostdev_order.py.
@pytest.mark.parametrize(("source", "edge"), [
    ("threads.cu", ev.ThreadJoin), ("pthreads.cu", ev.MutexOp),
])  # fmt: skip
def test_host_thread_edges_are_what_orders_the_correct_programs(thread_dumps, source, edge):
    """Rule 10 carries these programs: with the joins or mutex operations left out
    of the record, the host-device model finds a race in each."""
    whole = load.program(thread_dumps[source])
    assert analyse(whole) == []
    assert any(isinstance(e, edge) for e in whole.events)
    cut = ev.Program(tuple(e for e in whole.events if not isinstance(e, edge)),
                     whole.per_thread_default_stream)  # fmt: skip
    assert "host-device-race" in {f.kind for f in analyse(cut)}


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_instrumented_programs_compile_with_nvcc(tmp_path: Path):
    """The host code hirace adds (hooked calls, recorded host accesses) builds with nvcc."""
    sources = []
    for cu in sorted({c["source"] for c in CASES}):
        out = tmp_path / cu.replace(".cu", ".hirace.cu")
        result = instrument((HERE / cu).read_text(), cu, include_dirs=[str(HERE)])
        out.write_text(result.source)
        sources.append(str(out))
    done = subprocess.run(["nvcc", "-std=c++17", "-arch=sm_80", f"-I{include_dir()}", "-c",
                           *sources], cwd=tmp_path, capture_output=True, text=True,
                          timeout=1800, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert all((tmp_path / Path(s).name.replace(".cu", ".o")).is_file() for s in sources)


THREAD_FORMS = """#include <thread>
#include <vector>
#include <cuda_runtime.h>
struct Pool {
  void run(int n) { cudaDeviceSynchronize(); }
};
void work(int* d) { cudaMemset(d, 0, 4); }
int main() {
  int* d;
  cudaMalloc(&d, 4);
  Pool pool;
  std::thread a([d] { work(d); });
  std::thread b = std::thread(&Pool::run, &pool, 3);
  std::thread c(std::move(b));
  std::thread* p = &a;
  p->join();
  c.join();
  cudaFree(d);
  return 0;
}
"""


def test_thread_creations_and_joins_are_rewritten_in_every_form(tmp_path: Path):
    """A lambda, a member function, a temporary; a move is not a creation; a join
    through a pointer. The rewritten program compiles with nvcc where there is one."""
    text = instrument(THREAD_FORMS, "forms.cu").source
    at = 'HIRACE_AT("forms.cu", {}u, {}u, "main", false)'
    assert f"std::thread a(hirace::host::spawn({at.format(12, 15)}, [d] {{ work(d); }}));" in text
    assert (f"std::thread(hirace::host::spawn({at.format(13, 19)}, &Pool::run), &pool, 3)"
            in text)  # fmt: skip
    assert "std::thread c(std::move(b));" in text
    assert f"hirace::host::join({at.format(16, 3)}, *(p));" in text
    assert f"hirace::host::join({at.format(17, 3)}, c);" in text
    if shutil.which("nvcc") is None:
        return
    (tmp_path / "forms.cu").write_text(text)
    done = subprocess.run(["nvcc", "-std=c++17", "-arch=sm_80", f"-I{include_dir()}", "-c",
                           "forms.cu"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=900, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
