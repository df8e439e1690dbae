"""The program is the unit: user headers and included sources are instrumented.

The whole-program behaviour (races found in headers, an included `.cu` also
given as a source, launches and `extern __shared__` in headers on the CPU) is
in tests/programs/headers and tests/programs/sharedheader; these tests check
the rewrite itself: where header copies go, that they do not depend on the
unit including them, nvcc's spaced launch, and builtins that touch memory.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hirace_py import program
from hirace_py.cli import main
from hirace_py.instrument import files, instrument
from hirace_py.instrument.analyze import balanced_conditionals
from hirace_py.instrument.launch_syntax import contiguous
from hirace_py.instrument.runtime import include_dir

HEADER = """\
#pragma once
__device__ inline void bump(int* c) { c[0] += 1; }
__global__ void from_header(int* a) { a[threadIdx.x] = threadIdx.x; bump(a); }
"""


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "k.cuh").write_text(HEADER)
    (tmp_path / "main.cu").write_text(
        '#include "inc/k.cuh"\n__global__ void own(int* a) { a[0] = 1; bump(a); }\n'
    )
    return tmp_path


def test_instrument_rewrites_headers_into_copies_and_says_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path)
    out = root / "main.hirace.cu"
    assert main(["instrument", str(root / "main.cu"), "-o", str(out)]) == 0
    header = (root / "inc" / "k.cuh").resolve()
    copy = Path(f"{out}.headers") / str(header).lstrip("/")
    err = capsys.readouterr().err
    assert f"rewrote 1 user header(s) into {out}.headers/: {header}" in err
    assert (root / "inc" / "k.cuh").read_text() == HEADER  # the original is untouched
    text = copy.read_text()
    assert text.startswith('#line 1 "k.cuh"\n')
    assert "hirace::wr(__hr_t, &(a[threadIdx.x])" in text
    assert "hirace::rw(__hr_t, &(c[0])" in text  # the device function's instrumented copy
    assert f'#include "{copy}"' in out.read_text()


def test_header_copy_is_the_same_for_every_unit(tmp_path: Path) -> None:
    """Two units with different numbers of their own sites include one header:
    its copy is identical, and each unit's tables put its sites after their own."""
    root = _tree(tmp_path)
    other = '#include "inc/k.cuh"\n__global__ void g(int* a, int* b) { a[0] = b[1]; }\n'
    (root / "other.cu").write_text(other)
    header_dir = root / "copies"
    first = instrument((root / "main.cu").read_text(), str(root / "main.cu"),
                       header_dir=header_dir)  # fmt: skip
    second = instrument(other, str(root / "other.cu"), header_dir=header_dir)
    assert [h.text for h in first.headers] == [h.text for h in second.headers]
    assert first.headers[0].instrumented
    for result, own in ((first, 1), (second, 2)):
        files = [s.file for s in result.tables.sites]
        assert files[:own] == ["main.cu" if own == 1 else "other.cu"] * own
        assert set(files[own:]) == {"k.cuh"}
        assert [s.id for s in result.tables.sites] == list(range(len(files)))
        tag = re.search(r"HIRACE_S_(\w+) \+", result.headers[0].text)
        assert tag is not None
        assert f"#define HIRACE_S_{tag.group(1)} {own}u\n" in result.source


NEEDS_NVCC = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


@NEEDS_NVCC
def test_instrumented_headers_compile_with_nvcc(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    out = root / "main.hirace.cu"
    assert main(["instrument", str(root / "main.cu"), "-o", str(out)]) == 0
    args = ["nvcc", "-std=c++17", "-I", include_dir(), "-c", str(out), "-o", str(root / "main.o")]
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_included_source_given_too_is_built_once(tmp_path: Path) -> None:
    (tmp_path / "k_kernel.cu").write_text("__global__ void k(int* a) { a[0] = 1; }\n")
    main_cu = tmp_path / "main.cu"
    main_cu.write_text('#include "k_kernel.cu"\nint main() { return 0; }\n')
    sources = (main_cu, tmp_path / "k_kernel.cu")
    assert program.included_sources(sources, ()) == {tmp_path / "k_kernel.cu": main_cu}


@pytest.mark.parametrize("builtin", ["__builtin_memcpy", "__builtin_memmove"])
def test_memory_builtins_in_device_code_are_named_warnings(builtin: str) -> None:
    src = f"__global__ void k(int* a, int* b) {{ {builtin}(a, b, 16); a[1] = 0; }}\n"
    result = instrument(src, "k.cu")
    warnings = [w for w in result.tables.warnings if w.code == "untracked-call"]
    assert len(warnings) == 1 and f"'{builtin}'" in warnings[0].message
    assert (warnings[0].line, warnings[0].column) == (1, 37)


def test_memset_builtin_is_warned() -> None:
    src = "__global__ void k(char* a) { __builtin_memset(a, 0, 8); }\n"
    assert [w.code for w in instrument(src, "k.cu").tables.warnings] == ["untracked-call"]


# -- nvcc's spaced launch brackets -------------------------------------------


def test_spaced_launch_brackets_are_joined_in_place() -> None:
    src = "void f(int* a) { k << < 2, 32 >> > (a); g<<<1, 1>>>(a); }"
    out = contiguous(src)
    assert out == "void f(int* a) { k <<<  2, 32 >>>  (a); g<<<1, 1>>>(a); }"
    assert len(out) == len(src)


@pytest.mark.parametrize(
    "src",
    [
        "std::vector<std::vector<A<int>> > v;",  # a template argument list
        "auto p = &operator<< <int>;",  # explicit template arguments of operator<<
        "int x = a << b; int y = c >> d;",
    ],
)
def test_spaced_brackets_that_are_not_launches_are_left_alone(src: str) -> None:
    assert contiguous(src) == src


@given(st.text(alphabet="k<> ();,ab\n", max_size=40))
def test_joining_keeps_every_offset_and_line(src: str) -> None:
    out = contiguous(src)
    assert len(out) == len(src)
    assert [m.start() for m in re.finditer("\n", out)] == [
        m.start() for m in re.finditer("\n", src)
    ]
    assert out.replace(" ", "") == src.replace(" ", "")


def test_device_code_of_a_system_header_is_a_named_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library's device function (as CUB's are) is not instrumented: each call
    is a warning naming it and its header."""
    system = tmp_path / "sys"
    system.mkdir()
    (system / "lib.cuh").write_text("__device__ inline void fill(int* a) { a[0] = 1; }\n")
    monkeypatch.setattr(files, "SYSTEM_PREFIXES", (str(system) + "/",))
    src = "#include <lib.cuh>\n__global__ void k(int* a) { fill(a); }\n"
    result = instrument(src, str(tmp_path / "k.cu"), include_dirs=[str(system)])
    assert result.headers == ()
    [warning] = result.tables.warnings
    assert warning.code == "system-code" and (warning.line, warning.column) == (2, 29)
    assert "'fill'" in warning.message and "lib.cuh" in warning.message


def test_a_device_function_whose_qualifiers_sit_in_a_conditional_is_copied_whole() -> None:
    """`#ifdef X` / `__host__ __device__` / `#endif` before a function: its extent
    starts inside the conditional, and the copy must not carry a lone #endif."""
    src = ("#ifdef __CUDACC__\n__host__ __device__\n#endif\ninline int first(const int* p) "
           "{ return p[0]; }\n__global__ void k(int* a) { a[1] = first(a); }\n")  # fmt: skip
    text = instrument(src, "k.cu").source
    assert text.count("#endif") == text.count("#ifdef") + text.count("#if ")
    assert "first(hirace::Thread& __hr_t, const int* p)" in text
    assert balanced_conditionals("  __device__\n#endif\nint f();\n#if A\nx") == (
        "  __device__\n\nint f();\n#if A\nx\n#endif"
    )
