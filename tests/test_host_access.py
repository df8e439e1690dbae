"""The host-access rewrite (hirace_py.instrument.host_access): which host
expressions go through `touch`, and with which mode."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from hirace_py import dump, program
from hirace_py.instrument import host_access, instrument
from hirace_py.program import BuildOptions

SOURCE = """\
#include <cuda_runtime.h>
struct Pair { float* h; float* d; };
__global__ void k(float* v) { v[threadIdx.x] += 1; }
__host__ __device__ float twice(float* p) { return 2 * p[0]; }
int main() {
  float h[8], other[8];
  float* d;
  Pair pair = {h, nullptr};
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, pair.h, sizeof h, cudaMemcpyHostToDevice);
  h[0] = 1;
  h[1] += h[2];
  h[3]++;
  float* alias = &h[4];
  float s = sizeof(h[5]) + *h + pair.h[6] + other[0] + alias[0];
  k<<<1, 8>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  return (int)(s + twice(h));
}
"""


def touches(text: str) -> list[tuple[str, int, int]]:
    """(pointer, mode, line) of every touch in the rewritten source."""
    return [(m.group(4), int(m.group(1)), int(m.group(2)))
            for m in re.finditer(r'touch<\d+ull>\(&\(.*?\), (\d), "[^"]*", (\d+), (\d+), '
                                 r'"main", "([^"]*)"\)', text)]  # fmt: skip


def test_host_accesses_to_transfer_pointers_are_recorded_with_their_mode():
    text = instrument(SOURCE, "app.cu").source
    assert touches(text) == [
        ("h", 1, 11),  # h[0] = 1: a write
        ("h", 2, 12),  # h[1] += ...: read and write
        ("h", 0, 12),  # h[2]: a read
        ("h", 2, 13),  # h[3]++
        ("h", 0, 15),  # *h
        ("pair.h", 0, 15),  # a struct field passed to cudaMemcpy
    ]


def test_what_is_not_an_access_or_not_a_transfer_pointer_is_left_alone():
    text = instrument(SOURCE, "app.cu").source
    assert "&h[4]" in text  # an address, not an access
    assert "sizeof(h[5])" in text  # not evaluated
    assert "other[0]" in text and "alias[0]" in text  # never passed to a transfer call
    assert "return 2 * p[0]" in text  # __host__ __device__ code is compiled for the device too
    assert not re.search(r"touch<\d+ull>\(&\((v|p)\[", text)  # device code is not host code


CLASSES = """\
#include <cuda_runtime.h>
struct V {
  float x;
  V& operator+=(const V& o) { x += o.x; return *this; }
  bool operator<(const V& o) const { return x < o.x; }
  V operator()(int) const { return *this; }
};
bool operator==(const V& a, const V& b) { return a.x == b.x; }
void keep(const V&);
int main() {
  V *h, *d, v = {1};
  cudaMallocHost(&h, 8 * sizeof(V));
  cudaMalloc(&d, 8 * sizeof(V));
  h[0] = v;
  h[1] += h[2];
  bool a = h[3] < v, b = v == h[4];
  keep(h[5]);
  V w = h[6](0);
  cudaMemcpy(d, h, 8 * sizeof(V), cudaMemcpyHostToDevice);
  return a + b + (int)w.x;
}
"""


def test_operators_of_class_types_access_their_operands_as_the_built_in_ones():
    """Assignment and arithmetic on elements of a class type (a struct, __half)
    are calls of operator= and its kin: the element is written, read and
    written, or read, as with a built-in type; binding it to a reference
    parameter of a function, or calling a member of it, reads nothing."""
    text = instrument(CLASSES, "app.cu").source
    assert touches(text) == [
        ("h", 1, 14),  # h[0] = v: a write (the implicit copy assignment)
        ("h", 2, 15),  # h[1] += ...: read and write
        ("h", 0, 15),  # h[2]: a read
        ("h", 0, 16),  # h[3] < v (a member operator)
        ("h", 0, 16),  # v == h[4] (a free operator)
    ]


LOOPS = """\
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
int main(int argc, char** argv) {
  int a = atoi(argv[1]), n = atoi(argv[2]);
  float h[64], g[64], *d;
  float sum = 0;
  cudaMalloc(&d, sizeof h);
  for (int i = 0; i < 64; ++i) g[i] = 0;
  for (int i = a; i < n; ++i) h[i] = i;
  for (int i = a; i <= n - 1; i++) sum += h[i];
  for (int i = a; i < n; ++i) if (i % 2) h[i] = 0;
  for (int i = a; i < n; ++i) { h[i] = 1; if (sum > 1e9f) break; }
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  for (int i = a; i < n; ++i) h[i] = h[i] + g[i];
  for (int i = a; i < n; i += 1) sum += h[i] * 2, h[i] = sum;
  int m = n;
  for (int i = a; i < m; ++i) { h[i] = 1; m = n - 1; }
  for (int i = a; i < n; ++i) { h[i] = 1; cudaMemcpy(d, h, 4, cudaMemcpyHostToDevice); }
  for (int i = a; i < n; ++i) for (int j = 0; j < 2; ++j) h[i] += h[j];
#define M 64
  for (int i = a < 0 ? 0 : a; i < M; ++i) sum += h[i];
  for (int i = 0; i < M; ++i) sum += h[i];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%f\\n", sum);
  return 0;
}
"""
HOISTED_LINES = {10, 11, 15, 16, 20, 23}
"""Lines of LOOPS whose accesses to `h` are recorded once before the loop: the
counted loops whose body makes no call, cannot leave early and does not change
i, h or the bound (line 20: the inner loop's h[j]; line 23: a macro as the bound;
line 22 starts from a `?:`, which the span would evaluate again: not hoisted)."""


def test_counted_loops_record_their_accesses_before_the_loop():
    text = instrument(LOOPS, "app.cu").source
    spans = {int(m.group(1)) for m in re.finditer(r'touch_span<\d+ull>\([^;]*?, \d, "app.cu", '
                                                 r'(\d+), ', text)}  # fmt: skip
    elements = {int(m.group(1)) for m in re.finditer(r'touch<\d+ull>\(&\(h\[\w\]\), \d, '
                                                    r'"app.cu", (\d+), ', text)}  # fmt: skip
    assert spans == HOISTED_LINES
    # conditional, break, bound changed, a call; h[i] += under the inner loop of line 20
    assert elements == {12, 13, 18, 19, 20, 22}
    assert "for (int i = 0; i < 64; ++i) g[i] = 0;" in text  # g is no transfer pointer


def _host_accesses(exe: Path, args: list[str], tmp_path: Path) -> list[tuple]:
    """The dump's host accesses of one run, addresses as offsets from `h`'s lowest."""
    path = tmp_path / "dump.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    subprocess.run([str(exe), *args], env={**env, "HIRACE_DUMP": str(path)}, check=True,
                   capture_output=True, timeout=60)  # fmt: skip
    runs = dump.read_document(path)["host_accesses"]
    base = min((lo for _, _, lo, *_ in runs), default=0)
    return sorted((after, thread, lo - base, hi - base, mode, line, column)
                  for after, thread, lo, hi, mode, _, line, column, *_ in runs)  # fmt: skip


def test_a_loop_recorded_once_gives_the_runs_of_its_elements(tmp_path: Path, monkeypatch):
    """Differential: the program built with counted loops recorded before they run
    and built with every element recorded leave the same host accesses, for loops
    of every length (none, one, several) and starting points."""
    source = tmp_path / "loops.cu"
    source.write_text(LOOPS)
    built = program.build(BuildOptions(sources=(source,), output=tmp_path / "hoisted", cpu=True))
    assert "touch_span" in built.compiled[0].read_text()
    hoisted = built.executable
    monkeypatch.setattr(host_access, "counted_loop", lambda c: None)
    built = program.build(BuildOptions(sources=(source,), output=tmp_path / "elements", cpu=True))
    assert "touch_span" not in built.compiled[0].read_text()
    per_element = built.executable
    for a, n in ((0, 64), (5, 6), (7, 7), (9, 3), (1, 40)):
        got = _host_accesses(hoisted, [str(a), str(n)], tmp_path)
        assert got == _host_accesses(per_element, [str(a), str(n)], tmp_path), (a, n)


SCATTER = """\
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void fill(int* v) { v[threadIdx.x] = threadIdx.x; }
int main(int argc, char** argv) {
  int n = atoi(argv[1]);
  int h[16];
  int* d;
  cudaMalloc(&d, sizeof h);
  fill<<<1, 16>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += h[(i * 7) % 16];
  cudaFree(d);
  printf("%ld\\n", sum);
  return 0;
}
"""


def test_a_loop_coming_back_to_the_same_elements_records_each_once(tmp_path: Path):
    """`sum += h[(i * 7) % 16]` never touches the element after the last, so each
    access closes a run: the record keeps each element's run once per gap between
    CUDA calls (the histogram check of 'CUDA by Example' wrote 9 GB of them), and
    the bytes it says were read are the same for 16 iterations as for 100,000."""
    source = tmp_path / "scatter.cu"
    source.write_text(SCATTER)
    exe = program.build(BuildOptions(sources=(source,), output=tmp_path / "scatter",
                                     cpu=True)).executable  # fmt: skip
    loop_line = 13

    def reads(n: int) -> list[tuple[int, int]]:
        return [(lo, hi) for _, _, lo, hi, mode, line, _ in _host_accesses(exe, [str(n)], tmp_path)
                if line == loop_line and mode == 0]  # fmt: skip

    few, many = reads(16), reads(100_000)
    assert set(few) == set(many) == {(4 * k, 4 * k + 4) for k in range(16)}
    # each element once; the run still open at exit is closed without the check
    assert len(many) <= 16 + 1
