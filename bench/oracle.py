"""Oracle and replay throughput on long traces (issue 2: 10^5 events on 4x4x4).

Prints events per second for the happens-before oracle and the FSM replay on
the same random trace, and the oracle's time per 10^4 events (target: well
under one second). Run: python bench/oracle.py [--events N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from hirace_py import oracle
from hirace_py.replay import replay_trace
from hirace_py.trace import BSYNC, WSYNC, Grid, Trace


def random_trace(n: int, seed: int = 0) -> Trace:
    grid = Grid(4, 4, 4)
    rng = np.random.default_rng(seed)
    kind = rng.choice(3, size=n, p=[0.8, 0.1, 0.1])
    ops = np.where(kind == 0, rng.integers(0, 4, n), np.where(kind == 1, BSYNC, WSYNC))
    who = np.where(
        kind == 0,
        rng.integers(0, grid.threads, n),
        np.where(kind == 1, rng.integers(0, grid.blocks, n), rng.integers(0, 16, n)),
    )
    locs = np.where(kind == 0, rng.integers(0, 1000, n), 0)
    names = [str(i) for i in range(1000)]
    return Trace(grid, ops.astype(np.int8), who.astype(np.int32), locs.astype(np.int32), names)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    n = parser.parse_args().events
    trace = random_trace(n)
    start = time.perf_counter()
    verdict = oracle.check(trace)
    t_oracle = time.perf_counter() - start
    start = time.perf_counter()
    replay_trace(trace)
    t_replay = time.perf_counter() - start
    print(f"trace: {n} events, grid 4x4x4, 1000 locations, {len(verdict.races)} racy")
    print(
        f"oracle: {t_oracle:.2f} s, {n / t_oracle:,.0f} events/s, "
        f"{t_oracle * 1e4 / n:.3f} s per 10^4 events (target < 1 s)"
    )
    print(f"replay: {t_replay:.2f} s, {n / t_replay:,.0f} events/s")
    print(f"ratio replay/oracle: {t_replay / t_oracle:.2f}")


if __name__ == "__main__":
    main()
