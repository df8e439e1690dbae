"""PTX observation order on the runtime: the last-block counter reset.

docs/semantics.md 1.6 ("Observation order"): an atomic write precedes what
happens after an atomic that observed it. The last block of a fence
reduction resets the ticket counter with a plain store after its own
atomicInc observed every other block's increment: race-free, as the CUDA
samples' threadFenceReduction does it (our own kernel,
tests/sync_kernels/last_block.cu). Each case checks the oracle on the
kernel's trace on the CPU backend's schedule (blocks in order, thread 0 of
each block first) and the runtime on the kernel.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hirace_py
from hirace_py import oracle
from hirace_py.trace import parse

SOURCE = (Path(__file__).parent / "sync_kernels" / "last_block.cu").read_text()
BLOCKS = 4

# Thread 0 of block b: part, fence, ticket; the last block's thread 0 reads
# every part after a barrier, and its thread 1 resets the counter.
BLOCK = "W {b}.0.0 @p{b}; fence {b}.0.0; GA {b}.0.0 @n; bsync {b}; "
READS = "".join(f"R 3.0.0 @p{b}; " for b in range(BLOCKS))
RESET = "W 3.0.1 @n"


def trace(block: str = BLOCK, reset: str = RESET) -> str:
    return "".join(block.format(b=b) for b in range(BLOCKS)) + READS + reset


def run(kernel: str) -> hirace_py.report.LaunchReport:
    part, count, out = np.zeros(BLOCKS, np.int32), np.zeros(1, np.uint32), np.zeros(1, np.int32)
    report = hirace_py.check(SOURCE, kernel, BLOCKS, 32, [part, count, out], backend="cpu")
    assert out[0] == sum(range(1, BLOCKS + 1))
    assert count[0] == 0
    return report.launches[0]


def test_counter_reset_after_the_last_ticket_is_race_free() -> None:
    assert not oracle.check(parse(trace())).racy
    launch = run("last_block_reset")
    assert launch.races == []


def test_without_the_fence_the_parts_race() -> None:
    verdict = oracle.check(parse(trace(block=BLOCK.replace("fence {b}.0.0; ", ""))))
    assert set(verdict.races) == {"p0", "p1", "p2"}
    launch = run("last_block_reset_unfenced")
    assert {r.variable for r in launch.races} == {"part"}


def test_a_plain_ticket_races() -> None:
    plain = BLOCK.replace("GA {b}.0.0 @n", "R {b}.0.0 @n; W {b}.0.0 @n")
    verdict = oracle.check(parse(trace(block=plain)))
    assert set(verdict.races) == {"n", "p0", "p1", "p2"}
    launch = run("last_block_reset_plain")
    assert "count" in {r.variable for r in launch.races}


@pytest.mark.parametrize(
    ("reset", "racy"),
    [
        ("W 3.0.0 @n", False),  # the observer itself
        ("W 3.0.1 @n", False),  # a thread after a barrier that follows it
        ("W 2.0.1 @n", True),  # a thread of a block that observed only some
    ],
)
def test_the_reset_is_ordered_only_after_the_observer(reset: str, racy: bool) -> None:
    assert oracle.check(parse(trace(reset=reset))).racy is racy
