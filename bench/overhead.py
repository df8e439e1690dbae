"""Instrumentation overhead: checked vs plain kernel time, side by side in one run.

For each kernel (memory-bound, compute-bound, shared-memory heavy, atomic
heavy), the plain and the instrumented kernel run alternately on the same
inputs, `--repeat` times each; the table gives the median grid times, their
ratio, and the shadow bytes per monitored data element. Backends: the CPU
backend always, CuPy too when a GPU is usable (or with --backend cupy).

On the CPU backend, when valgrind is installed, each kernel also runs once
plain and once checked on smaller inputs under callgrind, counting the
instructions executed inside the grid (`hr::run_grid`); the difference over
the number of checked accesses (counted from the kernel's code, `Case.accesses`)
is the cost of one checked access. Instruction counts do not depend on the
load of a shared machine, as times do.

Whole programs with realistic working sets (bench/programs/, see
overhead_programs.py) run after the kernels, built checked and plain.

Targets (issue 16): median CPU time ratio <= 1.5x, worst <= 3x; at most 40
instructions per checked access on saxpy and stencil; <= 3x for each whole
program. On a GPU (issue 6) median <= 1.1x and mean <= 3x.
Run: python bench/overhead.py [--repeat 5] [--backend cpu|cupy|all] [--no-callgrind]
    [--programs yes|no|only]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from overhead_programs import print_programs, run_programs  # bench/, the script's directory

from hirace_py.backends.base import signatures
from hirace_py.backends.select import gpu_usable, open_module
from hirace_py.checker import Checker, include_dir
from hirace_py.config import Config
from hirace_py.launch_config import LaunchConfig

SOURCE = Path(__file__).parent / "kernels" / "overhead.cu"
FULL = (1 << 20, 256)
"""Element count and matrix side of the timed runs."""
SMALL = (1 << 14, 64)
"""The same for the callgrind runs (an instruction count needs no large input)."""


@dataclass
class Case:
    name: str
    kind: str
    kernel: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    args: Callable[[], list[object]]
    accesses: int
    """Checked accesses the launch makes, counted from the kernel's code."""

    @property
    def config(self) -> LaunchConfig:
        return LaunchConfig.of(self.grid, self.block)


def cases(n: int, m: int) -> list[Case]:
    """The eight kernels on n-element vectors and m x m matrices (n >= 2^14, m % 16 == 0)."""
    rng = np.random.default_rng(0)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    a = rng.random(m * m, dtype=np.float32)
    b = rng.random(m * m, dtype=np.float32)
    keys = rng.integers(0, 1 << 20, n).astype(np.int32)
    ints = rng.integers(0, 100, n).astype(np.int32)
    side = int(np.sqrt(n)) // 32 * 32  # transpose: the largest square of 32x32 tiles in x
    q = n // 4
    return [
        Case("saxpy", "memory", "saxpy", (n // 256,), (256,),
             lambda: [n, np.float32(2.0), x.copy(), y.copy()], 3 * n),
        Case("stencil", "memory", "stencil", (n // 256,), (256,),
             lambda: [n, x.copy(), np.zeros(n, np.float32)], 4 * (n - 2)),
        Case("polynomial", "compute", "polynomial", (q // 256,), (256,),
             lambda: [q, x[:q].copy(), np.zeros(q, np.float32)], 2 * q),
        # per block: 256 loads and stores, 3 per active thread per level, 2 by thread 0
        Case("block_sum", "shared", "block_sum", (n // 256,), (256,),
             lambda: [x.copy(), np.zeros(n // 256, np.float32)], n // 256 * (512 + 3 * 255 + 2)),
        # per thread and tile: 2 loads, 2 shared stores, 32 shared loads; then 1 store
        Case("matmul", "shared", "matmul", (m // 16, m // 16), (16, 16),
             lambda: [m, a.copy(), b.copy(), np.zeros(m * m, np.float32)],
             m * m * (m // 16 * 36 + 1)),
        Case("transpose", "shared", "transpose", (side // 32, side // 32), (32, 32),
             lambda: [side, x.copy(), np.zeros(n, np.float32)], 4 * side * side),
        # per block: 64 clears, 2 per key, 2 per bin to merge
        Case("histogram", "atomic", "histogram", (256,), (256,),
             lambda: [n, keys.copy(), np.zeros(64, np.int32)], 256 * (64 + 2 * 64) + 2 * n),
        Case("warp_sum", "atomic", "warp_sum", (n // 256,), (256,),
             lambda: [n, ints.copy(), np.zeros(1, np.uint64)], n + n // 32),
    ]  # fmt: skip


def child_cpu() -> float:
    """User plus system CPU seconds of this process's waited-for children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def plain_time(module, case: Case) -> float:  # type: ignore[no-untyped-def]
    args = case.args()
    buffers = [module.upload(a) if isinstance(a, np.ndarray) else a for a in args]
    return module.launch(case.kernel, case.config, buffers, echo=False).seconds


@dataclass
class Row:
    """One kernel's medians: grid seconds and child CPU seconds, plain and checked."""

    case: Case
    plain: float
    checked: float
    plain_cpu: float
    checked_cpu: float
    shadow_per_element: float


def modules(backend: str):  # type: ignore[no-untyped-def]
    source = SOURCE.read_text()
    checker = Checker(source, str(SOURCE), Config(), backend)
    plain, _ = open_module(backend, source, str(SOURCE), [include_dir()],
                           signatures(checker.tables.kernels))
    return checker, plain


def run_backend(backend: str, repeat: int) -> list[Row]:
    """Each case `repeat` times plain and checked, alternately; medians of each.

    CPU time is that of the forked child running the launch (both modes run
    isolated on the CPU backend): a loaded machine inflates it less than wall
    time. It is 0 on CuPy, whose launches run in this process.
    """
    checker, plain = modules(backend)
    rows = []
    for case in cases(*FULL):
        t_plain, t_checked, c_plain, c_checked, per_element = [], [], [], [], 0.0
        for _ in range(repeat):
            before = child_cpu()
            t_plain.append(plain_time(plain, case))
            middle = child_cpu()
            launch = checker.launch(case.kernel, case.config, case.args())
            c_plain.append(middle - before)
            c_checked.append(child_cpu() - middle)
            assert not launch.races, f"{case.name}: the benchmark kernels are race-free"
            t_checked.append(launch.seconds)
            elements = sum(a.size for a in case.args() if isinstance(a, np.ndarray))
            per_element = launch.shadow_bytes / elements
        med = statistics.median
        rows.append(Row(case, med(t_plain), med(t_checked), med(c_plain), med(c_checked),
                        per_element))  # fmt: skip
    return rows


def run_one(name: str, mode: str) -> None:
    """Child of `instructions`: one small launch of one case, plain or checked."""
    checker, plain = modules("cpu")
    case = next(c for c in cases(*SMALL) if c.name == name)
    if mode == "plain":
        plain_time(plain, case)
    else:
        checker.launch(case.kernel, case.config, case.args())


def grid_instructions(name: str, mode: str) -> int:
    """Instructions executed inside the grid of one small launch, counted by callgrind."""
    with tempfile.TemporaryDirectory(prefix="hirace-callgrind-") as tmp:
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--collect-atstart=no",
             "--toggle-collect=hr::run_grid*", f"--callgrind-out-file={tmp}/cg.%p",
             sys.executable, __file__, "--one", name, mode],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)},
        )  # fmt: skip
        total = 0
        for out in Path(tmp).iterdir():
            for line in out.read_text().splitlines():
                if line.startswith("summary:"):
                    total += int(line.split()[1])
        return total


def instructions() -> dict[str, tuple[float, float]]:
    """Per case: plain instructions per access and extra instructions per checked access."""
    out = {}
    for case in cases(*SMALL):
        plain = grid_instructions(case.name, "plain")
        checked = grid_instructions(case.name, "checked")
        out[case.name] = (plain / case.accesses, (checked - plain) / case.accesses)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--backend", choices=["cpu", "cupy", "all"], default="all")
    parser.add_argument("--no-callgrind", action="store_true",
                        help="skip the instruction counts (valgrind)")  # fmt: skip
    parser.add_argument("--programs", choices=["yes", "no", "only"], default="yes",
                        help="whole programs (bench/programs/) too, not, or only them")
    parser.add_argument("--one", nargs=2, metavar=("CASE", "MODE"), help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.one:
        run_one(*opts.one)
        return
    if opts.programs == "only":
        print_programs(run_programs(opts.repeat), opts.repeat)
        return
    backends = ["cpu", "cupy"] if opts.backend == "all" else [opts.backend]
    if "cupy" in backends and opts.backend == "all" and not gpu_usable():
        print("(no usable GPU: CuPy backend skipped)")
        backends = ["cpu"]
    counts: dict[str, tuple[float, float]] = {}
    if "cpu" in backends and not opts.no_callgrind:
        if shutil.which("valgrind"):
            counts = instructions()
        else:
            print("(valgrind not found: no instruction counts)")
    for backend in backends:
        rows = run_backend(backend, opts.repeat)
        print(f"\nbackend {backend}: median of {opts.repeat} runs each, interleaved")
        cpu = backend == "cpu"
        head = f"{'kernel':<12}{'kind':<9}{'plain ms':>10}{'checked ms':>12}{'ratio':>8}"
        if cpu:
            head += f"{'plain CPU ms':>14}{'checked CPU ms':>16}{'CPU ratio':>11}"
        head += f"{'shadow B/elem':>15}"
        if cpu and counts:
            head += f"{'plain instr/acc':>17}{'extra instr/acc':>17}"
        print(head)
        ratios, cpu_ratios = [], []
        for r in rows:
            ratios.append(r.checked / r.plain)
            line = f"{r.case.name:<12}{r.case.kind:<9}{r.plain * 1e3:>10.2f}"
            line += f"{r.checked * 1e3:>12.2f}{r.checked / r.plain:>7.2f}x"
            if cpu:
                cpu_ratios.append(r.checked_cpu / r.plain_cpu)
                line += f"{r.plain_cpu * 1e3:>14.1f}{r.checked_cpu * 1e3:>16.1f}"
                line += f"{r.checked_cpu / r.plain_cpu:>10.2f}x"
            line += f"{r.shadow_per_element:>15.2f}"
            if cpu and counts:
                line += f"{counts[r.case.name][0]:>17.1f}{counts[r.case.name][1]:>17.1f}"
            print(line)
        for what, values in (("grid time", ratios), ("CPU time", cpu_ratios)):
            if values:
                print(f"{what}: median ratio {statistics.median(values):.2f}x,"
                      f" mean {statistics.mean(values):.2f}x, max {max(values):.2f}x")
    if "cpu" in backends and opts.programs == "yes":
        print_programs(run_programs(opts.repeat), opts.repeat)
    print(f"(load average {os.getloadavg()[0]:.1f} at the end)")


if __name__ == "__main__":
    main()
