"""Throughput of `hirace check SUITE --inputs ...` on the mini-suite, cold and warm.

    python bench/indigo.py [--inputs G.egr ...] [--threads 256] [--blocks 1024] [--jobs 2]
                           [--repeat 2]

Checks the whole mini-suite (indigo/minisuite) on the inputs twice in one
invocation, side by side:
1. cold: an empty compile cache (a fresh $HIRACE_CACHE): the CPU runtime, every
   instrumented kernel and every host build of serial_code are compiled;
2. warm: the same cache and a fresh results database: nothing is compiled,
   but every code is still instrumented (libclang) and run.
Each pass is one `hirace check --jobs N --db ...` process, timed from start to
exit (interpreter start-up and input preparation included).
For each it prints the wall time, runs (codes x inputs) per minute, and the
worker time split into compile (`compile_s`: instrument, compile, host build,
once per code) and run (`run_s`: launches, replays of racy launches,
serial_code comparison), summed over all workers, so with --jobs 2 the sum can
approach twice the wall time. Results must be the same in every pass.
With --repeat N the pair of passes runs N times, each with a new empty cache,
and the best pass of each kind is shown (the machine may be shared).

Then, to show where a code's compile time goes, it times the pieces for one
code of each pattern in this process, cold (new cache) then warm: the
instrumentation (libclang parse and rewrite), the kernel compile and load
(`Checker` minus its instrumentation) and the host build of serial_code.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "indigo" / "minisuite"
GRAPHS = ROOT / "indigo" / "graphs"
DEFAULT_INPUTS = ("dag_60", "counter_dag_60", "power_law_150", "grid_64", "star_60", "dag_8")


def one_pass(label: str, cache: Path, db: Path, args: argparse.Namespace) -> dict:
    """Run `hirace check` on the suite in a fresh process with compile cache
    `cache` and a new results database; the figures of that run."""
    argv = [sys.executable, "-m", "hirace_py.cli", "check", str(SUITE), "--inputs",
            *map(str, args.inputs), "--threads", str(args.threads), "--blocks",
            str(args.blocks), "--jobs", str(args.jobs), "--db", str(db), "--format", "json",
            "--backend", "cpu"]  # fmt: skip
    env = {**os.environ, "HIRACE_CACHE": str(cache), "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"[{label}] hirace check failed ({proc.returncode}):\n{proc.stderr}")
    with sqlite3.connect(db) as con:
        runs, compile_s, run_s = con.execute(
            "SELECT count(*), sum(compile_s), sum(run_s) FROM runs"
        ).fetchone()
    keys = ("found", "missed", "false_alarms", "errors", "bounds")
    return {
        "label": label,
        "wall": wall,
        "runs": runs,
        "compile": compile_s,
        "run": run_s,
        "per_minute": runs / wall * 60,
        "results": [[s[k] for k in keys] for s in json.loads(proc.stdout)],
    }


PIECES_SAMPLE = ("push.cu", "pull_warp_shfl.cu", "edge_persistent.cu", "maxprop.cu",
                 "degree.cu", "relax.cu")  # fmt: skip


def pieces(cache: Path) -> dict[str, dict[str, float]]:
    """Median seconds per code of each compile piece, cold and warm, and the
    one-time runtime build, with compile cache `cache` (this process)."""
    os.environ["HIRACE_CACHE"] = str(cache)
    from hirace_py.backends.cpu_runtime import runtime
    from hirace_py.checker import Checker
    from hirace_py.indigo import serial
    from hirace_py.indigo.stub import redirect
    from hirace_py.indigo.suite import Code, read_code
    from hirace_py.instrument import instrument

    start = time.perf_counter()
    runtime()
    out: dict[str, dict[str, float]] = {"runtime": {"cold": time.perf_counter() - start}}
    codes = [read_code(SUITE / name, SUITE) for name in PIECES_SAMPLE]
    for phase in ("cold", "warm"):
        times: dict[str, list[float]] = {"instrument": [], "kernel compile": [], "host build": []}
        for code in codes:
            assert isinstance(code, Code)
            source = redirect(code.source, "kernel")
            t0 = time.perf_counter()
            instrument(source, str(code.path))
            t1 = time.perf_counter()
            Checker(source, str(code.path), None, "cpu")
            t2 = time.perf_counter()
            serial._loaded.clear()
            serial.build(code)
            t3 = time.perf_counter()
            times["instrument"].append(t1 - t0)
            times["kernel compile"].append(max(0.0, (t2 - t1) - (t1 - t0)))
            times["host build"].append(t3 - t2)
        for piece, values in times.items():
            out.setdefault(piece, {})[phase] = statistics.median(values)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", nargs="+", type=Path,
                        default=[GRAPHS / f"{g}.egr" for g in DEFAULT_INPUTS])  # fmt: skip
    parser.add_argument("--threads", type=int, default=256)
    parser.add_argument("--blocks", type=int, default=1024)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    passes: dict[str, list[dict]] = {"cold": [], "warm": []}
    with tempfile.TemporaryDirectory(prefix="hirace-bench-indigo-") as tmp:
        for i in range(args.repeat):
            cache = Path(tmp) / f"cache{i}"
            for label in passes:
                db = Path(tmp) / f"{label}{i}.sqlite"
                passes[label].append(one_pass(label, cache, db, args))
                print(f"{label} pass {i + 1}: {passes[label][-1]['wall']:.1f} s", file=sys.stderr)
        split = pieces(Path(tmp) / "pieces-cache")
    results = {str(p["results"]) for ps in passes.values() for p in ps}
    if len(results) != 1:
        sys.exit(f"results differ between passes: {sorted(results)}")
    cold, warm = (max(passes[k], key=lambda p: p["per_minute"]) for k in ("cold", "warm"))
    print(f"mini-suite: {cold['runs']} runs ({cold['runs'] // len(args.inputs)} codes x "
          f"{len(args.inputs)} inputs), {args.threads} threads x {args.blocks} blocks, "
          f"--jobs {args.jobs}, {os.cpu_count()} cores, best of {args.repeat}; load average "
          f"{os.getloadavg()[0]:.1f}")  # fmt: skip
    print(f"{'pass':<6}{'wall s':>9}{'runs/min':>10}{'compile s':>11}{'run s':>8}"
          f"{'compile %':>11}{'compile s/code':>16}{'run s/run':>11}")  # fmt: skip
    codes = cold["runs"] // len(args.inputs)
    for p in (cold, warm):
        busy = p["compile"] + p["run"]
        print(f"{p['label']:<6}{p['wall']:>9.1f}{p['per_minute']:>10.1f}{p['compile']:>11.1f}"
              f"{p['run']:>8.1f}{100 * p['compile'] / busy:>10.0f}%"
              f"{p['compile'] / codes:>16.2f}{p['run'] / p['runs']:>11.3f}")  # fmt: skip
    print(f"warm / cold throughput: {warm['per_minute'] / cold['per_minute']:.2f}x")
    print(f"compile pieces, median s per code over {len(PIECES_SAMPLE)} codes (one per pattern):")
    for piece, by_phase in split.items():
        cells = ", ".join(f"{phase} {value:.2f}" for phase, value in by_phase.items())
        print(f"  {piece}: {cells}" + (" (once per cache)" if piece == "runtime" else ""))


if __name__ == "__main__":
    main()
