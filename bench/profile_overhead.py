"""Overhead of the transfer profile: profiled vs unprofiled program, side by side.

Each program of bench/profile/ (transfer-, call- and allocation-heavy, written
for this benchmark) is built four times for the CPU backend: as it is
(`hirace build --no-instrument`), for the profile (`--profile`: host calls
recorded, the copies a pattern compares compared byte for byte, kernels not
instrumented), for the profile hashing those copies instead
(`-D HIRACE_HASH_COPIES`: the profile before copies were compared, and what
a GPU build does), and for the profile without hashes or comparisons
(`-D HIRACE_NO_HASHING`: what the record costs alone). The four run in
turn, `--repeat` times each, in one process of this script; the table gives
the median CPU and wall times of whole runs (the profiled ones writing their
dump), the ratios to the plain run, and the geometric means of the ratios.
`same` says whether the hashing and the comparing profiles found the same.
With `--callgrind` (valgrind installed), each build also runs once under
callgrind with `--callgrind-steps`, counting every instruction the process
executes: a ratio the load of a shared machine does not move (but that counts
each byte `rep movsb` moves as an instruction, and no system time). The time Python then takes
to read the profiled dump and analyse it (`hirace report --profile`) is shown
apart: it is not part of the program's run.

Target (issue 17): geometric mean <= 1.05x with kernels uninstrumented.
Run: python bench/profile_overhead.py [--repeat 5] [--steps 20] [--callgrind]
"""

from __future__ import annotations

import argparse
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hirace_py import dump
from hirace_py.config import Config
from hirace_py.program import BuildOptions, build

PROGRAMS = sorted((Path(__file__).parent / "profile").glob("*.cu"))


def _env(dump_path: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    if dump_path is not None:
        env["HIRACE_DUMP"] = str(dump_path)
    return env


def run_once(exe: Path, steps: int, dump_path: Path | None) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of the program."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([str(exe), str(steps)], capture_output=True, text=True,
                          env=_env(dump_path), check=False)  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{exe.name} failed ({proc.returncode}): {proc.stderr.strip()[:500]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def instructions(exe: Path, steps: int, dump_path: Path | None, scratch: Path) -> int:
    """Instructions the whole process executes, counted by callgrind."""
    out = scratch / "cg.out"
    proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                           str(exe), str(steps)], capture_output=True, text=True,
                          env=_env(dump_path), check=False)  # fmt: skip
    if proc.returncode != 0:
        sys.exit(f"callgrind of {exe.name} failed: {proc.stderr.strip()[-500:]}")
    m = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.M)
    if m is None:
        sys.exit(f"no instruction total in callgrind's output for {exe.name}")
    return int(m.group(1))


BUILDS = ("plain", "unhashed", "hashed", "profiled")
DEFINES: dict[str, dict[str, str | int | None]] = {
    "unhashed": {"HIRACE_NO_HASHING": 1}, "hashed": {"HIRACE_HASH_COPIES": 1}, "profiled": {}}


def run_options(parser: argparse.ArgumentParser, repeat: int) -> argparse.Namespace:
    """The run options this script and bench/profile_chunk.py share, parsed."""
    parser.add_argument("--repeat", type=int, default=repeat,
                        help=f"runs of each build (default {repeat})")  # fmt: skip
    parser.add_argument("--steps", type=int, default=20, help="program steps (default 20)")
    parser.add_argument("--callgrind", action="store_true", help="also count instructions")
    parser.add_argument("--callgrind-steps", type=int, default=2,
                        help="program steps under callgrind (default 2)")  # fmt: skip
    opts = parser.parse_args()
    if opts.callgrind and shutil.which("valgrind") is None:
        sys.exit("--callgrind needs valgrind")
    return opts


def _found(dump_path: Path) -> list[tuple[str, str, int, int]]:
    report = dump.load(dump_path, profile=True)
    assert report.profile is not None
    return [(f.pattern, f.site.where() if f.site else "", f.count, f.bytes)
            for f in report.profile.findings]  # fmt: skip


def main() -> None:
    opts = run_options(argparse.ArgumentParser(description=__doc__.splitlines()[0]), repeat=5)
    rows = []
    with tempfile.TemporaryDirectory(prefix="hirace-profile-bench-") as tmp:
        scratch = Path(tmp)
        for source in PROGRAMS:
            exe = {b: scratch / f"{source.stem}-{b}" for b in BUILDS}
            build(BuildOptions(sources=(source,), output=exe["plain"], cpu=True,
                               instrument=False))  # fmt: skip
            for b, defines in DEFINES.items():
                build(BuildOptions(sources=(source,), output=exe[b], cpu=True,
                                   config=Config(kernels=()), defines=defines))  # fmt: skip
            dumps = {b: None if b == "plain" else scratch / f"{source.stem}-{b}.json"
                     for b in BUILDS}  # fmt: skip
            runs: dict[str, list[tuple[float, float]]] = {b: [] for b in BUILDS}
            for b in BUILDS:
                run_once(exe[b], 1, dumps[b])  # warm the page cache
            for _ in range(opts.repeat):
                for b in BUILDS:
                    runs[b].append(run_once(exe[b], opts.steps, dumps[b]))
            profiled = dumps["profiled"]
            assert profiled is not None and dumps["hashed"] is not None
            start = time.perf_counter()
            report = dump.load(profiled, profile=True)
            analyse = time.perf_counter() - start
            assert report.profile is not None
            same = _found(profiled) == _found(dumps["hashed"])
            medians = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
                       for k, v in runs.items()}  # fmt: skip
            counts = None
            if opts.callgrind:
                counts = {b: instructions(exe[b], opts.callgrind_steps, dumps[b], scratch)
                          for b in BUILDS}  # fmt: skip
            rows.append((source.stem, medians, report.profile.transfers,
                         len(report.profile.findings), same, analyse, counts))  # fmt: skip
    print(f"profile overhead, CPU backend, median of {opts.repeat} runs of {opts.steps} steps;")
    print("ratios to the plain run: unhashed = recorded without hashes or comparisons, "
          "hashed = copies hashed, profiled = `hirace profile` (copies compared)")  # fmt: skip
    shown = BUILDS[1:]
    header = (f"{'program':15} {'cpu plain':>9} " + " ".join(f"{b:>8}" for b in shown)
              + f" {'wall plain':>10} " + " ".join(f"{b:>8}" for b in shown)
              + f" {'transfers':>9} {'found':>5} {'same':>4} {'analyse':>8}")  # fmt: skip
    if opts.callgrind:
        header += " instr " + " ".join(f"{b:>8}" for b in shown)
    print(header)
    ratios: dict[str, list[float]] = {}
    for name, m, transfers, findings, same, analyse, counts in rows:
        w0, c0 = m["plain"]
        for b in shown:
            ratios.setdefault(f"cpu, {b}", []).append(m[b][1] / c0)
        for b in shown:
            ratios.setdefault(f"wall, {b}", []).append(m[b][0] / w0)
        line = (f"{name:15} {c0:8.3f}s " + " ".join(f"{m[b][1] / c0:7.3f}x" for b in shown)
                + f" {w0:9.3f}s " + " ".join(f"{m[b][0] / w0:7.3f}x" for b in shown)
                + f" {transfers:9d} {findings:5d} {'yes' if same else 'NO':>4}"
                + f" {analyse:7.3f}s")  # fmt: skip
        if counts is not None:
            for b in shown:
                ratios.setdefault(f"instructions, {b}", []).append(counts[b] / counts["plain"])
            line += "       " + " ".join(f"{counts[b] / counts['plain']:7.3f}x" for b in shown)
        print(line)
    for what, values in ratios.items():
        geo = math.exp(statistics.fmean(math.log(r) for r in values))
        print(f"geometric mean of {what} ratios: {geo:.3f}x (target <= 1.05x)")
    if not all(same for *_, same, _, _ in rows):
        sys.exit("the hashing and the comparing profiles found different things")


if __name__ == "__main__":
    main()
