"""What the runtime does with the constructs it does not model exactly.

docs/semantics.md section 1 orders accesses through partial-mask warp
barriers and through message passing; the shadow word models neither
(docs/fsm.md, "What the table does not model"). The promise is: sound (no
race missed, tests/test_fsm_exhaustive.py) and never silent. These tests pin
both halves on kernels that are race-free by the semantics: the oracle, on
the kernel's trace, finds no race; the runtime reports the race and the
notice that explains it. A future exact model must flip the first assertion
of each test (as the lane groups did for a mask of aligned lanes). Then
cooperative-groups syncs (through tests/sync_kernels/cg_mini.h, a stand-in
with the toolkit's names): block and whole-warp syncs are exact, partial
tiles of a file that also syncs whole warps and the grid are modelled
soundly, with notices; and which lane groups the instrumenter picks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hirace_py
from hirace_py import oracle
from hirace_py.checker import Checker
from hirace_py.instrument import instrument
from hirace_py.launch_config import LaunchConfig
from hirace_py.report import LaunchReport
from hirace_py.trace import parse

SOURCE = (Path(__file__).parent / "sync_kernels" / "modelled_soundly.cu").read_text()
# The race-free last-block reductions are litmus cases; here their traces and
# what the CPU runtime computes.
MESSAGE = (Path(__file__).parents[1] / "kernels" / "sync" / "message.cu").read_text()


def test_group_mask_partner_is_exact() -> None:
    # Lane 0 writes, lanes 0 and 1 pass __syncwarp(0x3), lane 1 reads: the
    # file's lane groups are pairs (docs/semantics.md 1.3), so no race.
    assert not oracle.check(parse("W 0.0.0; wsync 0.0 0x3; R 0.0.1", None)).racy
    out = np.zeros(1, np.int32)
    report = hirace_py.check(SOURCE, "masked_with_partner", 1, 32, [out], backend="cpu")
    launch = report.launches[0]
    assert launch.races == [] and launch.notices == []
    assert out[0] == 1


def test_other_mask_partner_is_reported_with_the_notice() -> None:
    # Lanes 0 and 2 pass __syncwarp(0x5): no lane group.
    assert not oracle.check(parse("W 0.0.0; wsync 0.0 0x5; R 0.0.2", None)).racy
    out = np.zeros(1, np.int32)
    report = hirace_py.check(SOURCE, "masked_strided", 1, 32, [out], backend="cpu")
    launch = report.launches[0]
    assert [r.kind for r in launch.races] == ["read-write"]
    assert {n.code for n in launch.notices} == {"partial-syncwarp"}
    assert out[0] == 1


def test_fenced_last_block_is_race_free_with_the_notice() -> None:
    trace = (
        "W 0.0.0 @p0; fence 0.0.0; GA 0.0.0 @n; W 1.0.0 @p1; fence 1.0.0; GA 1.0.0 @n; "
        "R 1.0.0 @p0; R 1.0.0 @p1"
    )
    assert not oracle.check(parse(trace)).racy
    part, count, out = np.zeros(4, np.int32), np.zeros(1, np.uint32), np.zeros(1, np.int32)
    report = hirace_py.check(MESSAGE, "last_block_fence", 4, 32, [part, count, out], backend="cpu")
    launch = report.launches[0]
    # The CPU runtime passes the message (docs/fsm.md, "Message passing in the
    # runtime"), and still counts the fences.
    assert launch.races == []
    assert "fences" in {n.code for n in launch.notices}
    assert out[0] == 1 + 2 + 3 + 4


def test_last_block_read_by_the_whole_block_is_race_free() -> None:
    # Two threads per block on the CPU backend's schedule: slots written, a
    # barrier, thread 0's release; the last block's thread 0 acquires, a
    # barrier passes it on, every thread reads every block's slot.
    trace = (
        "W 0.0.0 @a0; W 0.0.1 @b0; bsync 0; fence 0.0.0; GA 0.0.0 @n; bsync 0; "
        "W 1.0.0 @a1; W 1.0.1 @b1; bsync 1; fence 1.0.0; GA 1.0.0 @n; bsync 1; "
        "R 1.0.0 @a0; R 1.0.1 @b0"
    )
    assert not oracle.check(parse(trace)).racy
    assert oracle.check(parse(trace.replace("bsync 0; fence", "fence"))).racy
    part, count, out = np.zeros(128, np.int32), np.zeros(1, np.uint32), np.zeros(32, np.int32)
    report = hirace_py.check(MESSAGE, "last_block_barrier", 4, 32, [part, count, out],
                             backend="cpu")  # fmt: skip
    launch = report.launches[0]
    assert launch.races == []
    assert "fences" in {n.code for n in launch.notices}
    assert out.tolist() == [4 * t for t in range(32)]


# The racy twins of the fenced last-block reduction in kernels/sync/message.cu,
# as traces on the CPU backend's schedule (blocks in order, 3 blocks): each is
# a race in docs/semantics.md 1.6 itself, so an exact runtime must keep it.
WRITES = "W {b}.0.0 @p{b}; "
TWINS = {
    "block-scope fence": "".join(WRITES.format(b=b) + f"fence.b {b}.0.0; GA {b}.0.0 @n; "
                                 for b in range(3)) + "R 2.0.0 @p0",
    "fence after the ticket": "".join(WRITES.format(b=b) + f"GA {b}.0.0 @n; fence {b}.0.0; "
                                      for b in range(3)) + "R 2.0.0 @p0",
    "reader takes no ticket": "".join(WRITES.format(b=b) + f"fence {b}.0.0; GA {b}.0.0 @n; "
                                      for b in range(2)) + WRITES.format(b=2) + "R 2.0.0 @p0",
}


@pytest.mark.parametrize("twin", sorted(TWINS))
def test_message_passing_twins_race_in_the_semantics(twin: str) -> None:
    assert oracle.check(parse(TWINS[twin])).racy


def test_the_fenced_ticket_is_race_free_in_the_semantics() -> None:
    trace = "".join(WRITES.format(b=b) + f"fence {b}.0.0; GA {b}.0.0 @n; " for b in range(3))
    assert not oracle.check(parse(trace + "R 2.0.0 @p0; R 2.0.0 @p1")).racy


GROUPS = Path(__file__).parent / "sync_kernels" / "groups.cu"


@pytest.fixture(scope="module")
def groups() -> Checker:
    return Checker(
        GROUPS.read_text(), str(GROUPS), backend="cpu", include_dirs=[str(GROUPS.parent)]
    )


def _launch(checker: Checker, kernel: str, grid: int, block: int, *scalars: int) -> LaunchReport:
    n = grid * block
    arrays = [np.zeros(n, np.int32) for _ in range(2 if kernel == "grid_phases" else 1)]
    return checker.launch(kernel, LaunchConfig.of(grid, block), [*arrays, *scalars])


def _pairs(launch: LaunchReport) -> set[tuple[str, str]]:
    return {(r.kind, r.space) for r in launch.races}


def test_group_syncs_are_instrumented_as_their_barriers(groups: Checker) -> None:
    text = groups.instrumented.source
    assert text.count(".group_barrier(") == 4 and text.count(".grid_barrier()") == 1


def test_block_sync_through_a_group_orders_the_block(groups: Checker) -> None:
    assert _pairs(_launch(groups, "block_sync", 1, 64)) == set()
    assert _pairs(_launch(groups, "free_sync", 1, 64, 1)) == set()
    assert _pairs(_launch(groups, "free_sync", 1, 64, 0)) == {("read-write", "shared")}


def test_a_whole_warp_tile_is_a_warp_barrier(groups: Checker) -> None:
    assert _pairs(_launch(groups, "warp_tile", 1, 64, 0)) == set()
    assert _pairs(_launch(groups, "warp_tile", 1, 64, 1)) == {("read-write", "shared")}


def test_a_partial_tile_orders_nothing_across_tiles(groups: Checker) -> None:
    launch = _launch(groups, "tile16_across", 1, 32)
    assert _pairs(launch) == {("read-write", "shared")}
    assert "partial-syncwarp" in {n.code for n in launch.notices}


def test_grid_sync_is_a_block_barrier_with_a_notice(groups: Checker) -> None:
    one = _launch(groups, "grid_phases", 1, 64)
    assert _pairs(one) == set() and "grid-syncs" in {n.code for n in one.notices}
    # Across blocks the block barrier orders nothing: the cross-block read is
    # reported (race-free in docs/semantics.md 1.3), and the notice says why.
    assert not oracle.check(parse("W 0.0.0 @a1; W 1.0.0 @a2; gsync; R 0.0.0 @a2")).racy
    two = _launch(groups, "grid_phases", 2, 32)
    assert _pairs(two) == {("read-write", "global")}
    assert "grid-syncs" in {n.code for n in two.notices}


TILE16 = "auto t = cg::tiled_partition<16>(b); "
WIDTHS = {
    "tiles of 16 only": (TILE16 + "t.sync();", 4),
    "tiles of 16 and whole warps": (TILE16 + "t.sync(); __syncwarp();", 5),
    "tiles of 16 and 8": (TILE16 + "t.sync(); cg::tiled_partition<8>(b).sync();", 5),
    "a literal mask of 8 aligned lanes": ("__syncwarp(0xff00u);", 3),
    "a mask of lanes that are no group": ("__syncwarp(0x5u);", 5),
    "a mask only known at run time": ("__syncwarp(__activemask());", 5),
    "a partitioned tile that is never synced": (TILE16 + "b.sync();", 5),
}


@pytest.mark.parametrize("case", sorted(WIDTHS))
def test_lane_groups_follow_the_warp_barriers_of_the_file(case: str) -> None:
    """docs/semantics.md 1.3: the groups are the one width every warp-level
    barrier of the file has, else whole warps."""
    body, log2 = WIDTHS[case]
    source = (f'#include "cg_mini.h"\nnamespace cg = cooperative_groups;\n'
              f"__global__ void k() {{ cg::thread_block b = cg::this_thread_block(); {body} }}\n")
    result = instrument(source, str(GROUPS.parent / "widths.cu"),
                        include_dirs=[str(GROUPS.parent)])  # fmt: skip
    assert result.tables.group_log2 == log2
    assert ("#define HIRACE_GROUP_LOG2" in result.source) == (log2 != 5)
