"""The host-access rewrite (hirace_py.instrument.host_access): which host
expressions go through `touch`, and with which mode."""

from __future__ import annotations

import re

from hirace_py.instrument import instrument

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
