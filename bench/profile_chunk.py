"""Chunk size of the CPU backend's hash-while-copying, side by side.

On the CPU backend a host<->device copy is a memcpy; the profile hashes a copy
larger than one chunk as it is made (templates/hirace_host.h.j2, HashingWatch):
a chunk is copied, then hashed while it is still in the cache, so the bytes
come from memory once. This script builds each program of bench/profile/
plainly and profiled with each chunk size of CHUNKS (`-D HIRACE_HASH_CHUNK`),
where "unfused" is a chunk larger than any copy: the whole copy is made, then
hashed from its destination. All builds run in turn, `--repeat` times each, in
one process; the table gives the median CPU time (user + system) of each
profiled build as a ratio to the plain run, and the geometric means. With
`--callgrind` each also runs once under callgrind (`--callgrind-steps`): the
instruction counts, as ratios to the plain run, show what chunking costs in
calls; the cache effect it is for shows in CPU time only.

Run: python bench/profile_chunk.py [--repeat 7] [--steps 20] [--callgrind] [PROGRAM.cu ...]
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
from pathlib import Path

from profile_overhead import (  # bench/, the script's directory
    PROGRAMS,
    instructions,
    run_once,
    run_options,
)

from hirace_py.config import Config
from hirace_py.program import BuildOptions, build

UNFUSED = 1 << 62
CHUNKS = (2 << 10, 4 << 10, 16 << 10, UNFUSED)


def _name(chunk: int) -> str:
    return "unfused" if chunk == UNFUSED else f"{chunk >> 10} KiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="*", type=Path, default=PROGRAMS,
                        help="programs taking a step count (default: bench/profile/*.cu)")
    opts = run_options(parser, repeat=7)
    cpu: dict[str, dict[int, float]] = {}
    counts: dict[str, dict[int, float]] = {}
    with tempfile.TemporaryDirectory(prefix="hirace-profile-chunk-") as tmp:
        scratch = Path(tmp)
        for source in opts.programs:
            plain = scratch / f"{source.stem}-plain"
            build(BuildOptions(sources=(source,), output=plain, cpu=True, instrument=False))
            exes = {0: plain}
            for chunk in CHUNKS:
                exes[chunk] = scratch / f"{source.stem}-{chunk}"
                build(BuildOptions(sources=(source,), output=exes[chunk], cpu=True,
                                   config=Config(kernels=()),
                                   defines={"HIRACE_HASH_CHUNK": chunk}))  # fmt: skip
            dump_path = scratch / f"{source.stem}.json"
            dumps = {k: None if k == 0 else dump_path for k in exes}
            for k, exe in exes.items():
                run_once(exe, 1, dumps[k])  # warm the page cache
            runs: dict[int, list[float]] = {k: [] for k in exes}
            for _ in range(opts.repeat):
                for k, exe in exes.items():
                    runs[k].append(run_once(exe, opts.steps, dumps[k])[1])
            base = statistics.median(runs[0])
            cpu[source.stem] = {c: statistics.median(runs[c]) / base for c in CHUNKS}
            if opts.callgrind:
                n = {k: instructions(exe, opts.callgrind_steps, dumps[k], scratch)
                     for k, exe in exes.items()}  # fmt: skip
                counts[source.stem] = {c: n[c] / n[0] for c in CHUNKS}
    print(f"hash-while-copying chunk size, CPU backend, median of {opts.repeat} runs of "
          f"{opts.steps} steps; ratios of profiled to plain")  # fmt: skip
    tables = [("CPU time", cpu)] + ([("instructions", counts)] if opts.callgrind else [])
    for what, table in tables:
        print(f"\n{what:15}" + "".join(f" {_name(c):>9}" for c in CHUNKS))
        for name, ratios in table.items():
            print(f"{name:15}" + "".join(f" {ratios[c]:8.3f}x" for c in CHUNKS))
        geo = {c: math.exp(statistics.fmean(math.log(r[c]) for r in table.values()))
               for c in CHUNKS}  # fmt: skip
        print(f"{'geometric mean':15}" + "".join(f" {geo[c]:8.3f}x" for c in CHUNKS))


if __name__ == "__main__":
    main()
