"""Benchmark of the CPU backend, measured side by side in one run.

    python bench/cpu_backend.py [--quick]

Prints, with the targets of issue 4 and the ratio to each:
- saxpy over 2^22 elements, 256 threads per block: CUDA thread executions per
  second (in-process and isolated; the grid time measured where it ran);
- a block reduction, 256 threads and 8 barriers per block: barrier arrivals
  per second;
- the same reduction on Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, in a
  subprocess) and the backend's speed-up over it;
- compile times (runtime build, cold kernel compile, cached compile) and the
  overhead of a launch (in-process and isolated).
Everything runs on one OS thread, so the rates are per core. The machine may
be shared: each figure is the best of a few repetitions.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from hirace_py.backends import cpu

SAXPY = """
__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""

# 256 threads, one barrier before each of the 8 halving steps.
REDUCE = """
__global__ void block_reduce(const float* in, float* out) {
    __shared__ float s[256];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 256 + t];
    for (unsigned stride = 128; stride > 0; stride >>= 1) {
        __syncthreads();
        if (t < stride) s[t] += s[t + stride];
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
"""
BARRIERS_PER_BLOCK = 8

EMPTY = "__global__ void empty() { }\n"

NUMBA_REDUCE = """
import json, os, sys, time
os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import numpy as np
from numba import cuda, float32

@cuda.jit
def block_reduce(inp, out):
    s = cuda.shared.array(256, float32)
    t = cuda.threadIdx.x
    s[t] = inp[cuda.blockIdx.x * 256 + t]
    stride = 128
    while stride > 0:
        cuda.syncthreads()
        if t < stride:
            s[t] += s[t + stride]
        stride //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]

blocks = int(sys.argv[1])
data = np.random.default_rng(0).random(blocks * 256, dtype=np.float32)
out = np.zeros(blocks, np.float32)
block_reduce[1, 256](data, out)  # warm-up: compile and first launch
start = time.perf_counter()
block_reduce[blocks, 256](data, out)
seconds = time.perf_counter() - start
assert np.allclose(out, data.reshape(blocks, 256).sum(axis=1), rtol=1e-4)
print(json.dumps({"seconds": seconds}))
"""

TARGET_THREADS = 20e6
TARGET_ARRIVALS = 5e6
TARGET_SPEEDUP = 100.0


def best_of(repeats: int, fn) -> float:
    return min(fn() for _ in range(repeats))


def bench_saxpy(repeats: int) -> dict[str, float]:
    mod = cpu.compile(SAXPY)
    n = 1 << 22
    x = np.random.default_rng(1).random(n, dtype=np.float32)
    y = np.ones(n, np.float32)
    rates = {}
    for isolate in (False, True):

        def run(isolate: bool = isolate) -> float:
            y[:] = 1
            return mod.launch("saxpy", n // 256, 256, [n, 2.0, x, y], isolate=isolate).seconds

        seconds = best_of(repeats, run)
        assert np.allclose(y, 2 * x + 1)
        rates["isolated" if isolate else "in-process"] = n / seconds
    return rates


def bench_reduce(blocks: int, repeats: int) -> dict[str, float]:
    mod = cpu.compile(REDUCE)
    data = np.random.default_rng(2).random(blocks * 256, dtype=np.float32)
    out = np.zeros(blocks, np.float32)
    expected = data.reshape(blocks, 256).sum(axis=1)
    arrivals = blocks * 256 * BARRIERS_PER_BLOCK
    rates = {}
    for isolate in (False, True):
        seconds = best_of(
            repeats,
            lambda isolate=isolate: (
                mod.launch("block_reduce", blocks, 256, [data, out], isolate=isolate).seconds
            ),
        )
        np.testing.assert_allclose(out, expected, rtol=1e-4)
        rates["isolated" if isolate else "in-process"] = arrivals / seconds
    random_seconds = best_of(
        repeats,
        lambda: (
            mod.launch(
                "block_reduce", blocks, 256, [data, out], isolate=False, schedule="random", seed=1
            ).seconds
        ),
    )
    rates["in-process, random schedule"] = arrivals / random_seconds
    return rates


def bench_numba(blocks: int) -> float | None:
    """Barrier arrivals per second on Numba's CUDA simulator, or None."""
    proc = subprocess.run(
        [sys.executable, "-c", NUMBA_REDUCE, str(blocks)],
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ, NUMBA_ENABLE_CUDASIM="1"),
    )
    if proc.returncode != 0:
        print(f"Numba CUDA simulator failed:\n{proc.stderr.strip()}", file=sys.stderr)
        return None
    seconds = json.loads(proc.stdout.strip().splitlines()[-1])["seconds"]
    return blocks * 256 * BARRIERS_PER_BLOCK / seconds


def bench_compile(samples: int) -> dict[str, float]:
    """Seconds for: building the runtime into an empty cache, compiling a new
    kernel (median), and compiling a cached one (median)."""
    previous = os.environ.get("HIRACE_CACHE")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["HIRACE_CACHE"] = cache
        try:
            start = time.perf_counter()
            cpu.compile(EMPTY)
            first = time.perf_counter() - start
            cold = []
            for k in range(samples):
                source = f"{REDUCE}// variant {k} {time.time_ns()}\n"
                start = time.perf_counter()
                cpu.compile(source)
                cold.append(time.perf_counter() - start)
            cached = []
            for _ in range(samples):
                start = time.perf_counter()
                cpu.compile(source)  # the last variant: now in the cache
                cached.append(time.perf_counter() - start)
        finally:
            if previous is None:
                os.environ.pop("HIRACE_CACHE", None)
            else:
                os.environ["HIRACE_CACHE"] = previous
    return {
        "runtime build and first kernel": first,
        "cold kernel compile (median)": statistics.median(cold),
        "cached compile (median)": statistics.median(cached),
    }


def bench_launch_overhead(samples: int) -> dict[str, float]:
    mod = cpu.compile(EMPTY)
    result = {}
    for isolate in (False, True):
        times = []
        for _ in range(samples):
            start = time.perf_counter()
            mod.launch("empty", 1, 32, [], isolate=isolate)
            times.append(time.perf_counter() - start)
        result["isolated" if isolate else "in-process"] = statistics.median(times)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and blocks")
    options = parser.parse_args()
    repeats = 2 if options.quick else 5
    reduce_blocks = 512 if options.quick else 4096
    numba_blocks = 2 if options.quick else 8

    print(f"CPU backend benchmark ({os.cpu_count()} CPUs visible; one OS thread per launch)")
    compile_times = bench_compile(3 if options.quick else 7)
    saxpy = bench_saxpy(repeats)
    reduce = bench_reduce(reduce_blocks, repeats)
    numba = bench_numba(numba_blocks)
    overhead = bench_launch_overhead(20 if options.quick else 100)

    print("\nsaxpy, 2^22 elements, 256 threads per block: thread executions per second")
    for mode, rate in saxpy.items():
        ratio = rate / TARGET_THREADS
        print(f"  {mode:30s} {rate / 1e6:8.1f} M/s   {ratio:6.1f}x the 20 M/s target")

    print("\nblock reduction, 256 threads, 8 barriers per block: barrier arrivals per second")
    for mode, rate in reduce.items():
        ratio = rate / TARGET_ARRIVALS
        print(f"  {mode:30s} {rate / 1e6:8.1f} M/s   {ratio:6.1f}x the 5 M/s target")
    if numba is not None:
        print(f"  {'Numba CUDA simulator':30s} {numba / 1e3:8.1f} k/s")
        speedup = reduce["in-process"] / numba
        print(f"  speed-up over the simulator:  {speedup:,.0f}x"
              f"   {speedup / TARGET_SPEEDUP:6.1f}x the 100x target")  # fmt: skip

    print("\ncompile times")
    for what, seconds in compile_times.items():
        print(f"  {what:34s} {seconds * 1e3:9.1f} ms")
    print("\nlaunch overhead (an empty kernel, 1 block of 32 threads; median)")
    for mode, seconds in overhead.items():
        print(f"  {mode:34s} {seconds * 1e3:9.3f} ms")
    ratio = overhead["isolated"] / overhead["in-process"]
    print(f"  isolated / in-process            {ratio:9.1f}x")


if __name__ == "__main__":
    main()
