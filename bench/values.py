"""The values engine's cost: plain vs FSM engine vs values engine, side by side in one run.

The kernels are bench/overhead.py's. For each, the plain kernel, the FSM-checked
kernel and the values-checked kernel run alternately on the same inputs,
`--repeat` times each, on the CPU backend; the table gives the median CPU
time of each launch (user + system time of the forked child that runs the
grid, from getrusage: robust on a loaded machine, where wall time is not) and
the ratios values/plain and values/FSM. It also checks that neither
engine reports a race and that the values engine's (union-copy) results equal
the plain run's, except where float atomics make the plain results
order-dependent (compared to a tolerance there).

Run: python bench/values.py [--repeat 3] [--only saxpy,matmul]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from overhead import FULL, SOURCE, Case, cases

from hirace_py.backends.base import signatures
from hirace_py.backends.select import open_module
from hirace_py.checker import Checker, include_dir
from hirace_py.config import Config
from hirace_py.values.checker import ValuesChecker


def children_cpu() -> float:
    """CPU seconds (user + system) used so far by waited-for child processes."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def plain_run(module, case: Case) -> tuple[float, list[np.ndarray]]:  # type: ignore[no-untyped-def]
    args = case.args()
    buffers = [module.upload(a) if isinstance(a, np.ndarray) else a for a in args]
    start = children_cpu()
    module.launch(case.kernel, case.config, buffers, echo=False)
    seconds = children_cpu() - start
    out = []
    for a, b in zip(args, buffers, strict=True):
        if isinstance(a, np.ndarray):
            module.download(b, a)
            out.append(a)
    return seconds, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", help="comma-separated kernel names")
    opts = parser.parse_args()
    source = SOURCE.read_text()
    fsm = Checker(source, str(SOURCE), Config(), "cpu")
    values = ValuesChecker(source, str(SOURCE), Config(), "cpu", instrumented=fsm.instrumented)
    plain, _ = open_module("cpu", source, str(SOURCE), [include_dir()],
                           signatures(fsm.tables.kernels))
    chosen = [c for c in cases(*FULL) if not opts.only or c.name in opts.only.split(",")]
    print(f"CPU backend: median of {opts.repeat} runs each, interleaved")
    print(f"{'kernel':<12}{'kind':<9}{'plain cpu ms':>13}{'fsm':>10}{'values':>10}"
          f"{'values/plain':>14}{'values/fsm':>12}")  # fmt: skip
    to_plain, to_fsm = [], []
    for case in chosen:
        tp, tf, tv = [], [], []
        for _ in range(opts.repeat):
            seconds, want = plain_run(plain, case)
            tp.append(seconds)
            start = children_cpu()
            launch = fsm.launch(case.kernel, case.config, case.args())
            tf.append(children_cpu() - start)
            assert not launch.races, f"{case.name}: FSM engine found a race"
            args = case.args()
            start = children_cpu()
            launch = values.launch(case.kernel, case.config, args)
            tv.append(children_cpu() - start)
            assert not launch.races, f"{case.name}: values engine found a race"
            got = [a for a in args if isinstance(a, np.ndarray)]
            for w, g in zip(want, got, strict=True):
                if g.dtype.kind == "f":
                    np.testing.assert_allclose(g, w, rtol=1e-5, err_msg=case.name)
                else:
                    np.testing.assert_array_equal(g, w, err_msg=case.name)
        p, f, v = (statistics.median(t) for t in (tp, tf, tv))
        to_plain.append(v / p)
        to_fsm.append(v / f)
        print(f"{case.name:<12}{case.kind:<9}{p * 1e3:>13.1f}{f * 1e3:>10.1f}{v * 1e3:>10.1f}"
              f"{v / p:>13.2f}x{v / f:>11.2f}x")  # fmt: skip
    print(f"median values/plain {statistics.median(to_plain):.2f}x, "
          f"values/fsm {statistics.median(to_fsm):.2f}x")


if __name__ == "__main__":
    main()
