"""Whole programs with realistic working sets, checked against plain, for bench/overhead.py.

Each program under bench/programs/ is built twice with `hirace build --cpu`:
instrumented, and with `--no-instrument`; the two run alternately with the
same arguments, `repeat` times each. Per run: wall seconds, CPU seconds (user
plus system, from `wait4`: a loaded machine inflates it less) and peak
resident memory of the program. Each checked run must print what the plain
one printed and report no race (`HIRACE_EXITCODE=1`).

Targets (issue 16): checked/plain <= 3x for each of the first three programs
(realistic working sets). repeat_own is the shape of a real kernel that cost
8.4x (docs/performance.md, eighth pass): each thread rereads and rewrites its
own element, which the fast path's cheapest case serves.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PROGRAMS = Path(__file__).parent / "programs"


@dataclass(frozen=True)
class Program:
    name: str
    what: str
    source: str
    args: tuple[str, ...]


PROGRAM_LIST = [
    Program("matvec", "y = A x, 8192^2 floats (256 MB), 3 iterations", "matvec.cu",
            ("8192", "3")),
    Program("jacobi", "5-point stencil, 4096^2 floats x 2, 6 iterations", "jacobi.cu",
            ("4096", "6")),
    Program("frontier_bfs", "BFS, 2^21 vertices, 2^24 edges, one launch per level",
            "frontier_bfs.cu", ("2097152", "8")),
    Program("repeat_own", "a[i] = a[i] * 0.5 + b[i] 64 times per thread, 2^22 floats",
            "repeat_own.cu", ("4194304", "64")),
]  # fmt: skip


@dataclass
class Run:
    wall: float
    cpu: float
    rss_mb: float
    stdout: str


@dataclass
class ProgramRow:
    """Medians over the runs of one program, plain and checked."""

    program: Program
    plain: Run
    checked: Run


def build(program: Program, out: Path, instrument: bool) -> None:
    """`hirace build --cpu` of one program; exits with the compiler's message on failure."""
    cmd = [sys.executable, "-m", "hirace_py.cli", "build", str(PROGRAMS / program.source),
           "-o", str(out), "--cpu"]  # fmt: skip
    if not instrument:
        cmd.append("--no-instrument")
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"building {program.name}: {done.stderr.strip()}")


def timed(exe: Path, program: Program) -> Run:
    """One run of a built program: its wall and CPU time and peak memory (`wait4`), its output."""
    env = {**os.environ, "HIRACE_EXITCODE": "1"}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen([str(exe), *program.args], stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            sys.exit(f"{exe.name} {' '.join(program.args)}: exit {child.returncode}\n{err.read()}")
        return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read())


def median_run(runs: list[Run]) -> Run:
    med = statistics.median
    return Run(med(r.wall for r in runs), med(r.cpu for r in runs),
               max(r.rss_mb for r in runs), runs[0].stdout)  # fmt: skip


def run_programs(repeat: int) -> list[ProgramRow]:
    """Build every program both ways, run them alternately, and return the medians."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="hirace-programs-") as tmp:
        for program in PROGRAM_LIST:
            checked_exe, plain_exe = Path(tmp) / program.name, Path(tmp) / f"{program.name}.plain"
            build(program, checked_exe, instrument=True)
            build(program, plain_exe, instrument=False)
            plain, checked = [], []
            for _ in range(repeat):
                plain.append(timed(plain_exe, program))
                checked.append(timed(checked_exe, program))
                if checked[-1].stdout != plain[-1].stdout:
                    sys.exit(f"{program.name}: the checked run printed {checked[-1].stdout!r},"
                             f" the plain one {plain[-1].stdout!r}")  # fmt: skip
            rows.append(ProgramRow(program, median_run(plain), median_run(checked)))
    return rows


def print_programs(rows: list[ProgramRow], repeat: int) -> None:
    print(f"\nwhole programs (hirace build --cpu, checked and --no-instrument):"
          f" median of {repeat} runs each, interleaved")  # fmt: skip
    print(f"{'program':<14}{'plain s':>9}{'checked s':>11}{'ratio':>8}{'plain CPU s':>13}"
          f"{'checked CPU s':>15}{'CPU ratio':>11}{'plain MB':>10}{'checked MB':>12}  what")
    for r in rows:
        p, c = r.plain, r.checked
        print(f"{r.program.name:<14}{p.wall:>9.2f}{c.wall:>11.2f}{c.wall / p.wall:>7.2f}x"
              f"{p.cpu:>13.2f}{c.cpu:>15.2f}{c.cpu / p.cpu:>10.2f}x{p.rss_mb:>10.0f}"
              f"{c.rss_mb:>12.0f}  {r.program.what}")  # fmt: skip
