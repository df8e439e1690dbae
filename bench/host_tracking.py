"""Host-side tracking overhead on a transfer-heavy program, side by side in one run.

bench/kernels/transfers.cu fills a pinned buffer on the host, copies it in,
scales it in a kernel, copies it back and sums it, step after step. It is
built for the CPU backend twice: plain (`--no-instrument`) and with host-side
tracking only (every CUDA call recorded with its site and a content hash,
host accesses to transfer buffers recorded, kernels not instrumented:
`instrument.kernels = []`), whose runs write their dump and host record
(`HIRACE_DUMP`) as under `hirace run`. The two run alternately `--repeat` times; the
table gives median wall times and their ratio. With valgrind installed, each
also runs once under callgrind, which counts instructions (stable on a
shared machine): of the whole program, of its kernels (`hr::run_grid`), and
so of the host side alone (the difference).

Target (issue 15): host-side ratio <= 1.2x.
Run: python bench/host_tracking.py [--repeat 5] [--elements N] [--steps S] [--no-callgrind]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from hirace_py import program
from hirace_py.config import Config
from hirace_py.program import BuildOptions

SOURCE = Path(__file__).parent / "kernels" / "transfers.cu"


def build(out: Path, tracked: bool) -> Path:
    old = os.getcwd()
    os.chdir(SOURCE.parent)
    try:
        program.build(BuildOptions(sources=(Path(SOURCE.name),), output=out, cpu=True,
                                   instrument=tracked, config=Config(kernels=())))  # fmt: skip
    finally:
        os.chdir(old)
    return out


def _env(dump: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    if dump is not None:
        env["HIRACE_DUMP"] = str(dump)
    return env


def run(exe: Path, args: list[str], dump: Path | None) -> tuple[float, str]:
    env = _env(dump)
    start = time.perf_counter()
    done = subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, check=True)
    return time.perf_counter() - start, done.stdout


def instructions(exe: Path, args: list[str], toggle: str | None, dump: Path | None) -> int:
    """Instructions callgrind counts in the whole run, or only inside `toggle`."""
    with tempfile.TemporaryDirectory(prefix="hirace-callgrind-") as tmp:
        extra = ["--collect-atstart=no", f"--toggle-collect={toggle}"] if toggle else []
        subprocess.run(["valgrind", "--tool=callgrind", *extra,
                        f"--callgrind-out-file={tmp}/cg.out", str(exe), *args],
                       capture_output=True, text=True, env=_env(dump), check=True)  # fmt: skip
        text = Path(tmp, "cg.out").read_text()
        return int(re.search(r"^(?:summary|totals): (\d+)", text, re.M).group(1))  # type: ignore[union-attr]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--elements", type=int, default=1 << 16)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--no-callgrind", action="store_true")
    opts = parser.parse_args()
    args = [str(opts.elements), str(opts.steps)]
    with tempfile.TemporaryDirectory(prefix="hirace-bench-") as tmp:
        plain = build(Path(tmp) / "plain", False)
        tracked = build(Path(tmp) / "tracked", True)
        dumps = {"plain": None, "tracked": Path(tmp) / "dump.json"}
        times: dict[str, list[float]] = {"plain": [], "tracked": []}
        outputs = set()
        for _ in range(opts.repeat):
            for name, exe in (("plain", plain), ("tracked", tracked)):
                seconds, out = run(exe, args, dumps[name])
                times[name].append(seconds)
                outputs.add(out)
        assert len(outputs) == 1, f"the builds disagree: {outputs}"
        p, t = statistics.median(times["plain"]), statistics.median(times["tracked"])
        print(f"transfers.cu, {opts.elements} elements x {opts.steps} steps, "
              f"median of {opts.repeat}:")  # fmt: skip
        print(f"  wall time   plain {p:.3f} s   tracked {t:.3f} s   ratio {t / p:.2f}x")
        if opts.no_callgrind or shutil.which("valgrind") is None:
            return
        small = [str(opts.elements // 16), str(max(opts.steps // 5, 1))]
        counts = {}
        for name, exe in (("plain", plain), ("tracked", tracked)):
            total = instructions(exe, small, None, dumps[name])
            kernels = instructions(exe, small, "hr::run_grid*", dumps[name])
            counts[name] = (total, kernels, total - kernels)
        (pt, pk, ph), (tt, tk, th) = counts["plain"], counts["tracked"]
        print(f"callgrind, {small[0]} elements x {small[1]} steps (instructions):")
        print(f"  whole program  plain {pt:>12,}  tracked {tt:>12,}  ratio {tt / pt:.2f}x")
        print(f"  kernels        plain {pk:>12,}  tracked {tk:>12,}  ratio {tk / pk:.2f}x")
        print(f"  host side      plain {ph:>12,}  tracked {th:>12,}  ratio {th / ph:.2f}x")


if __name__ == "__main__":
    main()
