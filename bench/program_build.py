"""Where the build of a suite program goes, and what each build setting saves.

    python bench/program_build.py [--suite DIR] [--limit N] [-I DIR ...] [--repeat 3]

For each code of a suite (default: the mini-suite, indigo/minisuite; every
.cu file under --suite, at most --limit of them, evenly spaced), builds the
program once for the CPU backend (`hirace_py.program.build`), then times, in
CPU seconds (user + system, so a loaded machine changes the figures little):

- instrument: the libclang parse and rewrite of the code and its headers
  (`hirace_py.instrument.instrument`, in this process), with the toolkit
  headers the code includes parsed from a precompiled header (the default);
  instrument-plain the same without that PCH (the prelude's alone), best of
  --repeat each, interleaved;
- g++ -c of the translated unit in five settings, interleaved per code so
  that all see the same load (every one with the backend's flags, which
  include -fno-var-tracking since it was measured here):
    O2        -O2, only the program header precompiled (the build before
              issue 13's work);
    O2+pch    -O2, the precompiled header holding the program header and
              hirace's runtime header (`cpu_program.instrumented_header`);
    Og        -Og, only the program header precompiled;
    Og+pch+vt -Og with that precompiled header and -fvar-tracking (the
              variable tracking -g turns on, before it was turned off);
    Og+pch    -Og with that precompiled header (what `hirace check SUITE`
              uses by default);
- link: the link with the runtime archive.
Each compile is repeated --repeat times and its minimum taken. Prints the
mean per code of each piece and each setting's compile time relative to O2.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from hirace_py.backends import cpu_program
from hirace_py.config import Config
from hirace_py.instrument import instrument, parse, runtime
from hirace_py.program import BuildOptions, build, work_dir, xxhash_dispatch

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "indigo" / "minisuite"
SETTINGS = (
    ("O2", "-O2", False, ()),
    ("O2+pch", "-O2", True, ()),
    ("Og", "-Og", False, ()),
    ("Og+pch+vt", "-Og", True, ("-fvar-tracking",)),
    ("Og+pch", "-Og", True, ()),
)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_child(action: Callable[..., object], *args: object) -> float:
    """CPU seconds the child processes of `action(*args)` used."""
    before = children_cpu()
    action(*args)
    return children_cpu() - before


def measure(code: Path, include: list[str], tmp: Path, repeat: int) -> dict[str, float]:
    text = code.read_text()
    out = {"instrument": 1e9, "instrument-plain": 1e9}
    for _ in range(repeat):
        for label, toolkit_pch in (("instrument", True), ("instrument-plain", False)):
            parse.use_toolkit_pch(toolkit_pch)
            start = time.process_time()
            instrument(text, str(code), Config(), include, {}, target="cpu", program=True,
                       header_dir=tmp / "headers-bench")  # fmt: skip
            out[label] = min(out[label], time.process_time() - start)
    parse.use_toolkit_pch(True)
    output = tmp / code.stem
    options = BuildOptions(sources=(code,), output=output, cpu=True,
                           include_dirs=tuple(include))  # fmt: skip
    build(options)
    work = work_dir(output)
    (unit,) = work.glob("*.cpu.cpp")
    prt = cpu_program.program_runtime()
    # The define `build` adds where the XXH3 dispatcher is available.
    defines: dict[str, str | int | None] = {"HIRACE_XXH_DISPATCH": 1} if xxhash_dispatch() else {}
    dirs = [work / "include", *map(Path, include)]
    obj = tmp / f"{code.stem}.o"
    for label, level, pch, extra in SETTINGS:
        instrumented = cpu_program.instrumented_header(prt, Path(runtime.include_dir()),
                                                       defines, level)  # fmt: skip
        header = instrumented.header if pch else None
        flags = [*cpu_program.compile_flags(prt, dirs, defines, code.parent, level, header),
                 *extra]  # fmt: skip
        out[label] = min(
            timed_child(cpu_program.compile_object, unit, obj, flags, text, code.name)
            for _ in range(repeat)
        )
    libraries = ("-lxxhash",) if defines else ()
    # (the last setting's unit uses the header: it links the host runtime's library)
    out["link"] = timed_child(cpu_program.link, prt, [obj, instrumented.host_library],
                              tmp / "linked", libraries)  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=SUITE)
    parser.add_argument("--limit", type=int, default=12)
    parser.add_argument("-I", dest="include", action="append", default=[])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    codes = sorted(args.suite.rglob("*.cu"))
    if not codes:
        sys.exit(f"{args.suite}: no .cu files")
    step = max(1, len(codes) // args.limit)
    codes = codes[step // 2 :: step][: args.limit]
    rows = []
    with tempfile.TemporaryDirectory(prefix="hirace-bench-build-") as tmp:
        for code in codes:
            rows.append(measure(code.resolve(), args.include, Path(tmp), args.repeat))
            print(f"{code.name}: " + ", ".join(f"{k} {v:.2f}" for k, v in rows[-1].items()),
                  file=sys.stderr)  # fmt: skip
    mean = {k: sum(r[k] for r in rows) / len(rows) for k in rows[0]}
    print(f"{args.suite}: {len(rows)} codes, CPU seconds per code (mean; compiles: best of "
          f"{args.repeat}); {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"{'piece':<18}{'CPU s':>8}{'ratio':>8}")
    compiles = {label for label, *_ in SETTINGS}
    for key, value in mean.items():
        base = mean["O2"] if key in compiles else mean["instrument-plain"]
        ratio = f"{value / base:.2f}x" if key in compiles or key == "instrument" else ""
        print(f"{key:<18}{value:>8.2f}{ratio:>8}")
    print("(compiles: vs O2; instrument: vs instrument-plain)")
    for label, *_ in SETTINGS:
        total = mean["instrument"] + mean[label] + mean["link"]
        print(f"build with {label:<7}: {total:.2f} CPU s per code")


if __name__ == "__main__":
    main()
