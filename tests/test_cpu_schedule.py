"""CPU backend: the order in which threads run is the documented schedule.

docs/cpu-backend.md ("Scheduling"): a thread runs until it waits; then the
runnable thread that has waited longest runs ("inorder"), or one drawn by the
seeded generator ("random"). A warp operation completes when its last lane
arrives, making its lanes runnable in lane order; when nothing is runnable, a
warp operation whose missing lanes have exited (exited threads "arrive") or the
block barrier completes. The engine takes these steps partly from the waiting
thread's own context (a direct switch to the next thread), partly from the
scheduler's; this test runs tests/cpu_kernels/schedule.cu, which logs each
stretch a thread runs between two waits, and compares the log, entry by entry,
with a Python model of those rules.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from hirace_py.backends import cpu

KERNEL = Path(__file__).parent / "cpu_kernels" / "schedule.cu"
WARP = 32
MASK64 = (1 << 64) - 1


@functools.cache
def module() -> cpu.Module:
    return cpu.compile(KERNEL.read_text(), filename=str(KERNEL))


@dataclass(frozen=True)
class Wait:
    """A wait of the kernel: a warp operation (`mask` set) or a barrier."""

    site: int
    mask: int | None = None


NOTE, EXIT = "note", "exit"


def program(t: int, quit: int) -> list[object]:
    """The kernel's steps for thread t: notes (log entries), waits, exit."""
    steps: list[object] = [NOTE, Wait(1, 0xFFFFFFFF), NOTE, Wait(2), NOTE]
    if t % WARP < 16:
        steps += [Wait(3, 0x0000FFFF), NOTE]
    if t >= quit:
        return [*steps, EXIT]
    return [*steps, Wait(4, 0xFFFFFFFF), NOTE, Wait(5), NOTE, EXIT]


class Splitmix:
    """The engine's generator for the random schedule (splitmix64)."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)


def model(n: int, quit: int, schedule: str, seed: int, arrive: bool) -> list[int]:
    """The log the documented schedule gives for one block of n threads."""
    steps = [program(t, quit) for t in range(n)]
    pc = [0] * n
    waiting: dict[int, Wait] = {}
    at_barrier: set[int] = set()
    exited: set[int] = set()
    queue = list(range(n))
    rng = Splitmix(seed)
    log: list[int] = []

    def pick() -> int | None:
        if not queue:
            return None
        if schedule == "random" and len(queue) > 1:
            k = rng.next() % len(queue)
            queue[0], queue[k] = queue[k], queue[0]
        return queue.pop(0)

    def try_complete(t: int) -> bool:
        w, site = t // WARP, waiting[t]
        assert site.mask is not None
        members = [w * WARP + lane for lane in range(WARP) if site.mask >> lane & 1]
        members = [u for u in members if u < n and not (arrive and u in exited)]
        if any(waiting.get(u) != site for u in members):
            return False
        for u in members:
            del waiting[u]
            queue.append(u)
        return True

    def run(t: int) -> None:
        while True:
            step = steps[t][pc[t]]
            pc[t] += 1
            if step == NOTE:
                log.append(t)
            elif step == EXIT:
                exited.add(t)
                return
            else:
                assert isinstance(step, Wait)
                if step.mask is None:
                    at_barrier.add(t)
                else:
                    waiting[t] = step
                    try_complete(t)
                return

    while True:
        t = pick()
        if t is not None:
            run(t)
            continue
        if len(exited) == n:
            return log
        if arrive and any(try_complete(u) for u in sorted(waiting)):
            continue
        assert at_barrier and len(at_barrier) + len(exited) == n, "the model diverged"
        queue.extend(sorted(at_barrier))
        at_barrier.clear()


# Threads in the block, the first that exits early, and how exited threads count.
CASES = [
    (64, 64, "error"),
    (48, 48, "error"),
    (64, 40, "arrive"),
    (96, 70, "arrive"),
]


SCHEDULES = [("inorder", 0), *(("random", seed) for seed in (1, 2, 3, 17))]


@pytest.mark.parametrize(("schedule", "seed"), SCHEDULES)
@pytest.mark.parametrize(("n", "quit", "exited"), CASES)
def test_threads_run_in_the_documented_order(schedule: str, seed: int, n: int, quit: int,
                                             exited: str) -> None:  # fmt: skip
    log = np.full(8 * n, -1, np.int32)
    pos = np.zeros(1, np.int32)
    module().launch("stretches", 1, n, [log, pos, quit], seed=seed, schedule=schedule,
                    exited_threads=exited)  # fmt: skip
    expected = model(n, quit, schedule, seed, exited == "arrive")
    assert pos[0] == len(expected)
    assert log[: pos[0]].tolist() == expected
