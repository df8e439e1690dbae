"""The host runtime's C++ shadow layout agrees with hirace_py.shadow on every launch shape.

Whole programs choose their layout in C++ (templates/hirace_host.h.j2,
rendered from the Python policy's constants); this builds a program that
prints its choices and compares them, field by field, with
`ShadowLayout.for_launch`, including the shapes where a policy step changes.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from hirace_py.backends import cpu_program
from hirace_py.instrument.runtime import include_dir
from hirace_py.shadow import ShadowLayout, ShadowLimitError

SHAPES = [
    (threads, blocks, sites, cap)
    for threads in (1, 2, 31, 32, 33, 256, 1000, 1024)
    for blocks in (1, 2, 1024, 70_001, 2**31 - 1, 2**40, 2**41 + 1)
    for sites in (1, 5, 300, 5000)
    for cap in (0, 16)
]

PROGRAM = """\
#define HIRACE_PROGRAM 1
#include "hirace_runtime.cuh"
#include <cstdio>
int main() {
  static const unsigned long long shapes[][4] = {
%s
  };
  for (const auto& s : shapes) {
    hirace::host::Layout l = hirace::host::layout_for(s[0], s[1], s[2], (unsigned)s[3]);
    if (!l.ok) { std::printf("none\\n"); continue; }
    std::printf("%%u %%u %%u %%u %%u %%u\\n", l.site_bits, l.tid_bits, l.block_bits, l.rc_bits,
                l.wc_bits, l.bc_bits);
  }
  return 0;
}
"""


def python_layout(threads: int, blocks: int, sites: int, cap: int) -> str:
    try:
        layout = ShadowLayout.for_launch(threads, blocks, sites, cap or None)
    except ShadowLimitError:
        return "none"
    return " ".join(str(v) for v in (layout.site_bits, layout.tid_bits, layout.block_bits,
                                      layout.rc_bits, layout.wc_bits, layout.bc_bits))  # fmt: skip


def test_cxx_layout_matches_python(tmp_path: Path) -> None:
    rows = ",\n".join(f"    {{{t}ull, {b}ull, {s}ull, {c}ull}}" for t, b, s, c in SHAPES)
    source = tmp_path / "layout.cpp"
    source.write_text(PROGRAM % rows)
    prt = cpu_program.program_runtime()
    flags = cpu_program.compile_flags(prt, [Path(include_dir())], {}, tmp_path)
    obj, exe = tmp_path / "layout.o", tmp_path / "layout"
    cpu_program.compile_object(source, obj, flags, source.read_text(), "layout.cpp")
    cpu_program.link(prt, [obj], exe)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120,
                         env={})  # fmt: skip
    assert run.returncode == 0, run.stderr
    got = run.stdout.splitlines()
    want = [python_layout(*shape) for shape in SHAPES]
    assert len(got) == len(SHAPES)
    mismatches = [(s, g, w) for s, g, w in zip(SHAPES, got, want, strict=True) if g != w]
    assert not mismatches, mismatches[:5]
    assert "none" in want and any(w.startswith("0 ") for w in want)
