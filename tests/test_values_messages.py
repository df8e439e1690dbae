"""The values engine on message passing (docs/engines.md, "Message passing").

The engine does not model a release (a fence, then an atomic) observed by an
atomic, so it must not report the conflicts such a message may order: before
this was handled, both race-free kernels below gave a values-only race
("unexplained", a false alarm; cuda-samples' threadFenceReduction had two).
The conflicts it leaves out are counted in a `values-messages` notice, and an
FSM race it missed that way is classified "messages". Without a fence the
ticket orders nothing, and the race is still reported by both engines.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hirace_py.instrument.model import Site
from hirace_py.launch_config import LaunchConfig
from hirace_py.report import Access, Race
from hirace_py.values.checker import ValuesChecker
from hirace_py.values.compare import REASONS, classify, compare
from hirace_py.values.engines import BothChecker

SOURCE = (Path(__file__).parent / "values_kernels" / "messages.cu").read_text()


@pytest.fixture(scope="module")
def both() -> BothChecker:
    return BothChecker(SOURCE, "messages.cu", backend="cpu")


def ticket_args(blocks: int) -> list[np.ndarray]:
    return [np.zeros(blocks, np.int32), np.zeros(1, np.uint32), np.zeros(1, np.int32)]


@pytest.mark.parametrize(("kernel", "grid", "block"), [
    ("blocks_fence_ticket", 4, 32),   # between blocks
    ("warps_fence_flag", 1, 64),      # between two warps of one interval
])  # fmt: skip
def test_a_passed_message_is_no_values_race(both: BothChecker, kernel: str, grid: int,
                                            block: int) -> None:  # fmt: skip
    args = ticket_args(grid) if grid > 1 else [np.zeros(1, np.int32) for _ in range(3)]
    launch = both.launch(kernel, LaunchConfig.of(grid, block), args)
    assert launch.races == []
    assert both.last_disagreements == []
    messages = [n for n in launch.notices if n.code == "values-messages"]
    assert len(messages) == 1 and messages[0].count >= 1  # bytes whose value changed
    assert launch.counters["values_releases"] >= 1


@pytest.mark.parametrize("blocks", [4, 7])
def test_the_last_block_reads_the_finished_blocks_results(blocks: int) -> None:
    # The values engine's own results (union copies): a block that takes an
    # atomic after a finished block released reads what the finished blocks
    # wrote, so the last block sums every part, as the plain execution does.
    values = ValuesChecker(SOURCE, "messages.cu", backend="cpu")
    args = ticket_args(blocks)
    values.launch("blocks_fence_ticket", LaunchConfig.of(blocks, 32), args)
    assert args[2][0] == sum(10 * b + 1 for b in range(blocks))
    # Without the fence no block released: the last block read the launch's
    # start values of the other parts (0), its own part alone.
    args = ticket_args(blocks)
    values.launch("blocks_no_fence", LaunchConfig.of(blocks, 32), args)
    assert args[2][0] == 10 * (blocks - 1) + 1


def test_the_last_blocks_write_stands_when_it_restores_the_launchs_value() -> None:
    # The second launch starts with the total in part[0]; block 0 changes it,
    # the last block writes the total back: no change to the launch's memory,
    # but it came after block 0's write, so it is the result.
    values = ValuesChecker(SOURCE, "messages.cu", backend="cpu")
    part = np.zeros(4, np.int32)
    for _ in range(2):
        values.launch("blocks_fence_total", LaunchConfig.of(4, 32), [part, np.zeros(1, np.uint32)])
        assert part.tolist() == [64, 11, 21, 31]


def test_without_the_fence_both_engines_report_the_race(both: BothChecker) -> None:
    launch = both.launch("blocks_no_fence", LaunchConfig.of(4, 32), ticket_args(4))
    found = {(r.engine, r.kind, r.lines()) for r in launch.races}
    assert found == {("fsm", "read-write", (44, 48)), ("values", "read-write", (44, 48))}
    assert "values-messages" not in {n.code for n in launch.notices}
    assert launch.counters["values_releases"] == 0


def race(first_block: int, second_block: int) -> Race:
    def at(line: int, block: int) -> Access:
        site = Site(0, "f.cu", line, 1, "W" if line == 10 else "R", "k", "part[i]")
        return Access(site, (0, 0, 0), (block, 0, 0))
    return Race("read-write", "global", "part", "k", at(10, first_block), at(20, second_block),
                1, 0)  # fmt: skip


def test_an_fsm_race_missed_for_messages_is_classified_so() -> None:
    r = race(0, 3)
    assert classify(r, [], (32, 1, 1), messages=True) == "messages"
    assert classify(r, [], (32, 1, 1)) == "value"
    [d] = compare([(r, (32, 1, 1))], [], messages=True)
    assert d.reason == "messages" and "message" in REASONS["messages"]
    assert d.notice().code == "engines-messages"
