"""`hirace build` takes programs as they are built: C and C++ sources, objects,
libraries and linker flags, as nvcc does, with -D/-I applied to every compiler."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hirace_py import dump
from hirace_py.cli import main
from hirace_py.errors import HiraceError
from hirace_py.nvcc_options import includes_and_defines, split
from hirace_py.program_inputs import CUDA, CXX, LINK, C, kind_of, nvcc_link_flags

MAIN = """\
#include <cstdio>
extern "C" int add_knr(int, int);
extern "C" int lib_scale(int);
extern "C" int obj_twice(int);
int host_sum(const int* v, int n);
int* make_buffer(int n);
__global__ void inc(int* a) { a[threadIdx.x] += 1; a[0] = 7; }
int main() {
  int* d = make_buffer(4);
  inc<<<1, 4>>>(d);
  int h[4];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d %d %d %d %s\\n", add_knr(2, 3), lib_scale(7), obj_twice(4), host_sum(h, 4), TAG);
  return 0;
}
"""
KNR_C = """\
/* K&R C: an old-style definition, compiled as C. */
int add_knr(a, b)
int a;
int b;
{
  return a + b + OFFSET;
}
"""
HOST_CPP = """\
#include <numeric>
#include <vector>
int host_sum(const int* v, int n) {
  std::vector<int> w(v, v + n);
  return std::accumulate(w.begin(), w.end(), 0);
}
"""
# C++ host code that calls the CUDA runtime: built as CUDA host code, so the
# memory it allocates is monitored when main.cu's kernel uses it.
ALLOC_CPP = """\
#include <cuda_runtime.h>
int* make_buffer(int n) {
  int* p = nullptr;
  cudaMalloc(&p, n * sizeof(int));
  cudaMemset(p, 0, n * sizeof(int));
  return p;
}
"""
LIB_C = "int lib_scale(int x) { return 10 * x; }\n"
OBJ_C = "int obj_twice(int x) { return 2 * x; }\n"


def _program(tmp_path: Path) -> list[str]:
    """The sources and the prebuilt archive and object, as a build's inputs and flags."""
    for name, text in (("main.cu", MAIN), ("knr.c", KNR_C), ("host.cpp", HOST_CPP),
                       ("alloc.cpp", ALLOC_CPP), ("lib.c", LIB_C), ("obj.c", OBJ_C)):  # fmt: skip
        (tmp_path / name).write_text(text)
    lib = tmp_path / "lib"
    lib.mkdir()
    subprocess.run(["cc", "-c", "lib.c", "-o", "lib.o"], cwd=tmp_path, check=True)
    subprocess.run(["ar", "rcs", str(lib / "libscale.a"), "lib.o"], cwd=tmp_path, check=True)
    subprocess.run(["cc", "-c", "obj.c", "-o", "obj.o"], cwd=tmp_path, check=True)
    return [str(tmp_path / n) for n in ("main.cu", "knr.c", "host.cpp", "alloc.cpp", "obj.o")] + [
        "-L", str(lib), "-lscale", "-Wl,--as-needed", "-DOFFSET=100", '-DTAG="two words"',
    ]  # fmt: skip


def test_cpu_build_links_c_cxx_objects_and_libraries(tmp_path: Path) -> None:
    args = _program(tmp_path)
    out = tmp_path / "app"
    assert main(["build", *args, "-o", str(out), "--cpu"]) == 0
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    env["HIRACE_DUMP"] = str(tmp_path / "app.dump")
    run = subprocess.run([str(out)], capture_output=True, text=True, env=env, timeout=120,
                         check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    # Threads run in order on the CPU: a = {7, 1, 1, 1}.
    assert run.stdout == "105 70 8 10 two words\n"
    # The buffer allocated in alloc.cpp is monitored: the race on it is reported.
    report = dump.load(tmp_path / "app.dump")
    assert [(launch.kernel, r.kind, r.space, r.variable) for launch in report.launches
            for r in launch.races] == [("inc", "write-write", "global", "p")]  # fmt: skip
    work = Path(f"{out}.hirace")
    assert (work / "alloc.hirace.cu").is_file()  # CUDA host C++: instrumented
    assert not (work / "host.hirace.cu").exists()  # plain C++: compiled as it is
    assert not (work / "knr.hirace.cu").exists()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_nvcc_build_links_c_cxx_objects_and_libraries(tmp_path: Path) -> None:
    out = tmp_path / "app"
    assert main(["build", *_program(tmp_path), "-o", str(out)]) == 0
    assert out.is_file()


@pytest.mark.parametrize(
    ("name", "text", "kind"),
    [
        ("k.cu", "", CUDA),
        ("a.c", "int f(void);", C),
        ("a.cpp", "#include <vector>\n", CXX),
        ("a.cc", '#include "cuda_runtime.h"\n', CUDA),
        ("a.C", "#include <cuda.h>\n", CUDA),
        ("a.o", None, LINK),
        ("libx.a", None, LINK),
        ("libx.so.2", None, LINK),
    ],
)
def test_inputs_are_told_apart_by_suffix_and_includes(name: str, text: str | None,
                                                      kind: str) -> None:  # fmt: skip
    assert kind_of(Path(name), text, ()) == kind


def test_cuda_through_a_local_header_makes_cxx_cuda(tmp_path: Path) -> None:
    (tmp_path / "wrap.h").write_text("#include <cuda_runtime.h>\n")
    assert kind_of(tmp_path / "a.cpp", '#include "wrap.h"\n', ()) == CUDA


def test_unknown_input_is_a_one_line_error(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    (tmp_path / "notes.txt").write_text("")
    with pytest.raises(HiraceError, match=r"notes\.txt: unknown input type '\.txt'"):
        kind_of(tmp_path / "notes.txt", "", ())
    code = main(["build", str(tmp_path / "notes.txt"), "-o", str(tmp_path / "x"), "--cpu"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "unknown input type" in err


def test_linker_options_become_nvcc_xlinker() -> None:
    assert nvcc_link_flags(("-L/x", "-lm", "-Wl,-rpath,/y")) == [
        "-L/x", "-lm", "-Xlinker", "-rpath,/y",
    ]  # fmt: skip


def test_only_linker_w_options_are_taken(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["build", str(tmp_path / "a.cu"), "-o", str(tmp_path / "a"), "-Wall"])
    assert exc.value.code == 2


@pytest.mark.parametrize(
    ("flags", "compile_", "link", "not_applied"),
    [
        # nvcc passes host-compiler options to the compile and to the link.
        (["-Xcompiler", "-fopenmp,-Wall"], ["-fopenmp", "-Wall"], ["-fopenmp", "-Wall"], []),
        (["--compiler-options=-fopenmp"], ["-fopenmp"], ["-fopenmp"], []),
        (["-Xlinker", "-rpath,/y", "-lgomp", "-L", "/x"], [], ["-Wl,-rpath,/y", "-lgomp", "-L/x"],
         []),
        (["-U", "z", "-Uy", "-isystem", "/s"], ["-Uz", "-Uy", "-isystem/s"], [], []),
        (["-g", "-w"], ["-g", "-w"], ["-g", "-w"], []),
        # -lineinfo is no library; the dialect and GPU code generation are nvcc's.
        (["-lineinfo", "-arch=sm_70", "-gencode", "arch=compute_70,code=sm_70", "-std=c++14",
          "-O3", "--use_fast_math", "-Xptxas", "-v"], [], [],
         ["-lineinfo", "-arch=sm_70", "-gencode arch=compute_70,code=sm_70", "-std=c++14", "-O3",
          "--use_fast_math", "-Xptxas -v"]),
    ],
)  # fmt: skip
def test_nvcc_flags_are_sorted_for_the_cpu_backend(flags: list[str], compile_: list[str],
                                                   link: list[str],
                                                   not_applied: list[str]) -> None:  # fmt: skip
    host = split(tuple(flags))
    assert (list(host.compile), list(host.link), list(host.not_applied)) == (
        compile_, link, not_applied)  # fmt: skip


OPENMP = """\
#include <cstdio>
#include <omp.h>
__global__ void fill(int* a, int base) {
  a[base + threadIdx.x] = base;
  if (base == 0) a[64] = threadIdx.x;
}
int main() {
  int* d = nullptr;
  cudaMalloc(&d, 65 * sizeof(int));
  omp_set_num_threads(4);
  int threads = 0;
#pragma omp parallel
  {
    cudaStream_t s;
    cudaStreamCreate(&s);
    fill<<<1, 16, 0, s>>>(d, 16 * omp_get_thread_num());
    cudaStreamSynchronize(s);
#pragma omp atomic
    threads += 1;
  }
  int h[64];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d threads, h[63] = %d\\n", threads, h[63]);
  return 0;
}
"""


def test_openmp_host_code_builds_with_the_flags_nvcc_takes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An OpenMP program (host threads launching on their own streams) builds for the
    CPU backend with nvcc's `-Xcompiler -fopenmp`, runs every thread's kernel, and its
    race (every thread of thread 0's kernel writes a[64]) is reported; an option the
    CPU backend does not apply is named, and without the flag the link failure says
    what to give."""
    (tmp_path / "omp.cu").write_text(OPENMP)
    out = tmp_path / "omp"
    args = ["build", str(tmp_path / "omp.cu"), "-o", str(out), "--cpu"]
    assert main([*args, "--nvcc-flags", "-Xcompiler -fopenmp -arch=sm_70"]) == 0
    assert "not applied on the CPU backend: -arch=sm_70 (" in capsys.readouterr().err
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    env.update(HIRACE_DUMP=str(tmp_path / "omp.dump"), OMP_NUM_THREADS="4")
    run = subprocess.run([str(out)], capture_output=True, text=True, env=env, timeout=120,
                         check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout == "4 threads, h[63] = 48\n"
    report = dump.load(tmp_path / "omp.dump")
    assert sorted(launch.kernel for launch in report.launches) == ["fill"] * 4
    assert [(r.kind, r.variable, r.first.site.line, r.second.site.line)
            for launch in report.launches for r in launch.races] == [
        ("write-write", "d", 5, 5)]  # fmt: skip
    assert main([*args, "-o", str(tmp_path / "plain")]) == 2
    err = capsys.readouterr().err
    # (ld.bfd quotes the symbol `so', gold 'so': cpu_program.linker_flags)
    assert re.search(r"undefined reference to [`']omp_set_num_threads'", err), err
    assert "--nvcc-flags='-Xcompiler -fopenmp'" in err


def test_nvcc_include_dirs_and_defines_are_the_builds() -> None:
    flags = ("-I", "a", "-Ib", "--include-path=c", "-DX=1", "-D", "Y", "--define-macro", "Z=2",
             "-Xcompiler", "-fopenmp", "-Dw")  # fmt: skip
    assert includes_and_defines(flags) == (
        ("a", "b", "c"), ("X=1", "Y", "Z=2", "w"), ("-Xcompiler", "-fopenmp"))  # fmt: skip


GUARDED = """\
#include <cstdio>
__global__ void k(int* a) {
#ifdef RACY
  a[0] = threadIdx.x;
#endif
}
int main() {
  int* d;
  cudaMalloc(&d, sizeof(int));
  k<<<1, 2>>>(d);
  cudaDeviceSynchronize();
  printf("%s\\n", GREETING);
  return 0;
}
"""


def test_code_under_a_macro_given_in_nvcc_flags_is_instrumented(tmp_path: Path) -> None:
    """A -D in --nvcc-flags reaches the instrumenter as well as the compiler: the
    access it enables is checked, its race reported."""
    (tmp_path / "g.cu").write_text(GUARDED)
    out = tmp_path / "g"
    flags = "-DRACY -D GREETING='\"hi there\"'"
    assert main(["build", str(tmp_path / "g.cu"), "-o", str(out), "--cpu",
                 f"--nvcc-flags={flags}"]) == 0  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    env["HIRACE_DUMP"] = str(tmp_path / "g.dump")
    run = subprocess.run([str(out)], capture_output=True, text=True, env=env, timeout=120,
                         check=False)  # fmt: skip
    assert (run.returncode, run.stdout) == (0, "hi there\n"), run.stderr
    report = dump.load(tmp_path / "g.dump")
    assert [(r.kind, r.second.site.line) for launch in report.launches for r in launch.races] == [
        ("write-write", 4)]  # fmt: skip
