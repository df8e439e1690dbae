"""Instrumentation overhead: checked vs plain kernel time, side by side in one run.

For each kernel (memory-bound, compute-bound, shared-memory heavy, atomic
heavy), the plain and the instrumented kernel run alternately on the same
inputs, `--repeat` times each; the table gives the median grid times, their
ratio, and the shadow bytes per monitored data element. Backends: the CPU
backend always, CuPy too when a GPU is usable (or with --backend cupy).

Targets (issue 6): median CPU ratio <= 4x; on a GPU median <= 1.1x and mean <= 3x.
Run: python bench/overhead.py [--repeat 5] [--backend cpu|cupy|all]
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hirace_py.backends.select import gpu_usable, open_module
from hirace_py.checker import Checker, include_dir
from hirace_py.config import Config

SOURCE = Path(__file__).parent / "kernels" / "overhead.cu"


@dataclass
class Case:
    name: str
    kind: str
    kernel: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    args: Callable[[], list[object]]


def cases() -> list[Case]:
    rng = np.random.default_rng(0)
    n = 1 << 20
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    m = 256
    a = rng.random(m * m, dtype=np.float32)
    b = rng.random(m * m, dtype=np.float32)
    keys = rng.integers(0, 1 << 20, n).astype(np.int32)
    ints = rng.integers(0, 100, n).astype(np.int32)
    return [
        Case("saxpy", "memory", "saxpy", (n // 256,), (256,),
             lambda: [n, np.float32(2.0), x.copy(), y.copy()]),
        Case("stencil", "memory", "stencil", (n // 256,), (256,),
             lambda: [n, x.copy(), np.zeros(n, np.float32)]),
        Case("polynomial", "compute", "polynomial", (n // 4 // 256,), (256,),
             lambda: [n // 4, x[: n // 4].copy(), np.zeros(n // 4, np.float32)]),
        Case("block_sum", "shared", "block_sum", (n // 256,), (256,),
             lambda: [x.copy(), np.zeros(n // 256, np.float32)]),
        Case("matmul", "shared", "matmul", (m // 16, m // 16), (16, 16),
             lambda: [m, a.copy(), b.copy(), np.zeros(m * m, np.float32)]),
        Case("transpose", "shared", "transpose", (32, 32), (32, 32),
             lambda: [1024, x.copy(), np.zeros(n, np.float32)]),
        Case("histogram", "atomic", "histogram", (256,), (256,),
             lambda: [n, keys.copy(), np.zeros(64, np.int32)]),
        Case("warp_sum", "atomic", "warp_sum", (n // 256,), (256,),
             lambda: [n, ints.copy(), np.zeros(1, np.uint64)]),
    ]  # fmt: skip


def plain_time(module, case: Case) -> float:  # type: ignore[no-untyped-def]
    args = case.args()
    buffers = [module.upload(a) if isinstance(a, np.ndarray) else a for a in args]
    return module.launch(case.kernel, pad(case.grid), pad(case.block), buffers, 0, 0,
                         "inorder", echo=False).seconds  # fmt: skip


def pad(dims: tuple[int, ...]) -> tuple[int, int, int]:
    d = [*dims, 1, 1]
    return d[0], d[1], d[2]


def run_backend(backend: str, repeat: int) -> list[tuple[Case, float, float, float]]:
    source = SOURCE.read_text()
    checker = Checker(source, str(SOURCE), Config(), backend)
    plain, _ = open_module(backend, source, str(SOURCE), [include_dir()], checker.tables)
    rows = []
    for case in cases():
        t_plain, t_checked, per_element = [], [], 0.0
        for _ in range(repeat):
            t_plain.append(plain_time(plain, case))
            launch = checker.launch(case.kernel, case.grid, case.block, case.args())
            assert not launch.races, f"{case.name}: the benchmark kernels are race-free"
            t_checked.append(launch.seconds)
            elements = sum(a.size for a in case.args() if isinstance(a, np.ndarray))
            per_element = launch.shadow_bytes / elements
        rows.append((case, statistics.median(t_plain), statistics.median(t_checked), per_element))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--backend", choices=["cpu", "cupy", "all"], default="all")
    opts = parser.parse_args()
    backends = ["cpu", "cupy"] if opts.backend == "all" else [opts.backend]
    if "cupy" in backends and opts.backend == "all" and not gpu_usable():
        print("(no usable GPU: CuPy backend skipped)")
        backends = ["cpu"]
    for backend in backends:
        rows = run_backend(backend, opts.repeat)
        print(f"\nbackend {backend}: median of {opts.repeat} runs each, interleaved")
        print(f"{'kernel':<12}{'kind':<9}{'plain ms':>10}{'checked ms':>12}{'ratio':>8}"
              f"{'shadow B/elem':>15}")  # fmt: skip
        ratios = []
        for case, tp, tc, per in rows:
            ratios.append(tc / tp)
            print(f"{case.name:<12}{case.kind:<9}{tp * 1e3:>10.2f}{tc * 1e3:>12.2f}"
                  f"{tc / tp:>7.2f}x{per:>15.2f}")  # fmt: skip
        print(f"median ratio {statistics.median(ratios):.2f}x, mean {statistics.mean(ratios):.2f}x,"
              f" max {max(ratios):.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
