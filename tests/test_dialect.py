"""nvcc-only spellings rewritten in place for clang and g++ (hirace_py.instrument.dialect).

Found on real code: `__shared__ alignas(X)` (clang: "an attribute list cannot
appear here"; g++: "standard attributes in middle of decl-specifiers") and an
inline-assembly operand list without a comma between two operands. Each
rewrite must keep every byte offset and line (edits planned on the parse apply
to the original), and the instrumented copy must still compile with nvcc.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hirace_py.checker import include_dir
from hirace_py.instrument import instrument
from hirace_py.instrument.dialect import normalized


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("__shared__ alignas(16) float a[4];", "alignas(16) __shared__ float a[4];"),
        ("__shared__  alignas(alignof(float4)) float a[4];",
         "alignas(alignof(float4))  __shared__ float a[4];"),
        ("__shared__ float a[4];", "__shared__ float a[4];"),
        ("alignas(8) __shared__ int x;", "alignas(8) __shared__ int x;"),
        ('asm volatile("st [%1], %0;" ::"r"(v) "l"(p) : "memory");',
         'asm volatile("st [%1], %0;" ::"r"(v),"l"(p) : "memory");'),
        ('asm("mov %0, %1;" : "=r"(a) : "r"(b) "r"(c));',
         'asm("mov %0, %1;" : "=r"(a) : "r"(b),"r"(c));'),
        ('asm("op" : "=r"(a), "=r"(b) : "r"(c), "r"(d));',
         'asm("op" : "=r"(a), "=r"(b) : "r"(c), "r"(d));'),
        # The clobber list is strings only: nothing to separate there.
        ('asm("op" ::: "memory" "cc");', 'asm("op" ::: "memory" "cc");'),
        ('const char* s = f("a") "b";', 'const char* s = f("a") "b";'),
        ("k << < 1, 32 >> > (p);", "k <<<  1, 32 >>>  (p);"),
        ('extern "C"__global__ void k(int* p);', 'extern"C" __global__ void k(int* p);'),
        ('extern "C"__device__ int f();', 'extern"C" __device__ int f();'),
        # A literal operator with a suffix of the user's own stays as it is.
        ('auto x = "a"_s;', 'auto x = "a"_s;'),
        ('f("x"__global__);', 'f("x"__global__);'),
    ],
)  # fmt: skip
def test_rewrites(source: str, expected: str) -> None:
    assert normalized(source) == expected


FRAGMENTS = st.sampled_from([
    "__shared__ ", "alignas(16) ", "alignas(alignof(int)) ", "float a[4]; ", "\n", "// c\n",
    'asm volatile("x" ::"r"(v) "l"(p)); ', '"s" ', "(", ")", "k << < 1, 2 >> > (a); ",
    "__asm__(", ":", "::", " ", "int x;", 'extern "C"', "__global__ ",
])  # fmt: skip


@given(st.lists(FRAGMENTS, max_size=30))
def test_offsets_and_lines_are_kept(parts: list[str]) -> None:
    source = "".join(parts)
    out = normalized(source)
    assert len(out) == len(source)
    assert [i for i, ch in enumerate(out) if ch == "\n"] == [
        i for i, ch in enumerate(source) if ch == "\n"
    ]
    assert sorted(out.replace(",", " ")) == sorted(source.replace(",", " ")) or "<<" in source


KERNEL = """\
extern "C"__global__ void publish(unsigned char* flag, int* data) {
  __shared__ alignas(16) int tile[32];
  tile[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = tile[31 - threadIdx.x];
  unsigned int one = 1;
  if (threadIdx.x == 0)
    asm volatile("st.release.sys.global.u8 [%1], %0;" ::"r"(one) "l"(flag) : "memory");
}
"""


def test_instrumented_parse_succeeds_and_keeps_accesses(tmp_path: Path) -> None:
    result = instrument(KERNEL, str(tmp_path / "k.cu"))
    lines = {s.line for s in result.tables.sites}
    assert {3, 5} <= lines


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_instrumented_copy_compiles_with_nvcc(tmp_path: Path) -> None:
    out = tmp_path / "k.hirace.cu"
    out.write_text(instrument(KERNEL, str(tmp_path / "k.cu")).source)
    proc = subprocess.run(
        ["nvcc", "-c", "-arch=sm_80", "-std=c++17", "-I", include_dir(),
         "-o", str(tmp_path / "k.o"), str(out)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
