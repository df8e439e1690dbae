"""Where the CPU time of checking a suite goes: builds and runs, Python and children.

    python bench/indigo_cost.py SUITE --inputs F ... [--args TEMPLATE] [-I DIR]
                                [--optimize Og] [--top 12]

One process does what a `hirace check` worker does for every code of SUITE
(`hirace_py.indigo.programs.CodeRunner`: build once through the build cache,
then one run per input) and charges each step's CPU seconds to two accounts:
this process (Python: instrumenting with libclang, reading the race report)
and its children (g++ and the linker for a build; the program for a run),
from `getrusage`. It prints, per algorithm (the file name's first token), the
mean build and run cost in both accounts, the totals, and the --top most
expensive runs, so a slow tail can be told from a cost every run pays.

Set HIRACE_CACHE to an empty directory for build costs: a program found in
the cache costs nothing and is counted apart ("cached"). The CPU backend's
runtime and the precompiled headers are built before the first code and are
left out of the per-code figures (printed as "set-up"). CPU seconds hardly
change with the machine's load, wall times do, so only CPU seconds are
printed. Codes labelled `LivelockBug` are left out: `hirace check` runs them
last under a launch limit derived from their siblings (docs/indigo.md).
"""

from __future__ import annotations

import argparse
import resource
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from hirace_py.config import Config
from hirace_py.indigo.programs import CodeRunner, Input, Settings, load_input
from hirace_py.indigo.suite import Code, discover


@dataclass
class Cost:
    """CPU seconds of this process (`own`) and of its children (`children`)."""

    own: float = 0.0
    children: float = 0.0

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.own + other.own, self.children + other.children)

    @property
    def total(self) -> float:
        return self.own + self.children


def _clock() -> Cost:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Cost(me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime)


def _since(start: Cost) -> Cost:
    now = _clock()
    return Cost(now.own - start.own, now.children - start.children)


def algorithm(code: Code) -> str:
    return Path(code.rel).name.split("_")[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--inputs", nargs="+", type=Path, required=True)
    parser.add_argument("--args", default="{input} 1 0", help="the programs' command line")
    parser.add_argument("-I", dest="include", action="append", default=[])
    parser.add_argument("--optimize", default="Og", choices=("O2", "O1", "Og", "O0"))
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()

    inputs: list[Input] = [load_input(p) for p in args.inputs]
    codes = [c for c in discover(args.suite) if not c.labels.hangs]
    settings = Settings(threads=256, blocks=1024, backend="cpu", config=Config(),
                        args=tuple(args.args.split()), include_dirs=tuple(args.include),
                        optimize=f"-{args.optimize}")  # fmt: skip
    builds: dict[str, list[Cost]] = defaultdict(list)
    runs: dict[str, list[Cost]] = defaultdict(list)
    cached = 0
    every_run: list[tuple[Cost, str, str]] = []
    setup = Cost()
    for i, code in enumerate(codes):
        start = _clock()
        runner = CodeRunner(code, settings)
        cost = _since(start)
        if runner.error:
            print(f"build error, left out: {code.rel}: {runner.error[:200]}")
            continue
        if cost.children < 0.05:  # no compiler ran: the program was in the cache
            cached += 1
        elif i == 0:
            setup = cost  # the runtime and headers are built with the first code
        else:
            builds[algorithm(code)].append(cost)
        for data in inputs:
            start = _clock()
            runner.run(data)
            cost = _since(start)
            runs[algorithm(code)].append(cost)
            every_run.append((cost, code.rel, data.path.name))

    def mean(costs: list[Cost]) -> str:
        if not costs:
            return "       -        -"
        n = len(costs)
        return f"{sum(c.own for c in costs) / n:8.3f} {sum(c.children for c in costs) / n:8.3f}"

    print(f"{len(codes)} codes x {len(inputs)} inputs, -{args.optimize}; "
          f"{cached} programs found in the cache; set-up (first code) "
          f"{setup.own:.2f} + {setup.children:.2f} CPU s")  # fmt: skip
    print("CPU seconds per build and per run: own (Python) and children (compiler / program)")
    print(f"{'algorithm':10} {'builds':>6} {'own':>8} {'children':>8} {'runs':>6} "
          f"{'own':>8} {'children':>8}")  # fmt: skip
    for name in sorted(set(builds) | set(runs)):
        print(f"{name:10} {len(builds[name]):6} {mean(builds[name])} {len(runs[name]):6} "
              f"{mean(runs[name])}")  # fmt: skip
    all_builds = [c for costs in builds.values() for c in costs]
    all_runs = [c for costs in runs.values() for c in costs]
    print(f"{'all':10} {len(all_builds):6} {mean(all_builds)} {len(all_runs):6} {mean(all_runs)}")
    if all_runs:
        ordered = sorted(every_run, key=lambda r: -r[0].total)
        total = sum(c.total for c in all_runs)
        share = sum(r[0].total for r in ordered[: max(1, len(ordered) // 20)]) / total
        print(f"the costliest 5% of runs take {share:.0%} of the runs' CPU")
        print(f"the {args.top} costliest runs (own + children CPU s):")
        for cost, rel, name in ordered[: args.top]:
            print(f"  {cost.own:6.3f} + {cost.children:6.3f}  {rel}  {name}")
    print(f"(measured {time.strftime('%H:%M:%S')})")


if __name__ == "__main__":
    main()
