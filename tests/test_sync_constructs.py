"""What the runtime does with the constructs it does not model exactly.

docs/semantics.md section 1 orders accesses through partial-mask warp
barriers and through message passing; the shadow word models neither
(docs/fsm.md, "What the table does not model"). The promise is: sound (no
race missed, tests/test_fsm_exhaustive.py) and never silent. These tests pin
both halves on kernels that are race-free by the semantics: the oracle, on
the kernel's trace, finds no race; the runtime reports the race and the
notice that explains it. A future exact model must flip the first assertion
of each test. Then cooperative-groups syncs (through tests/sync_kernels/cg_mini.h,
a stand-in with the toolkit's names): block and whole-warp syncs are exact,
partial tiles and the grid are modelled soundly, with notices.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hirace_py
from hirace_py import oracle
from hirace_py.checker import Checker
from hirace_py.launch_config import LaunchConfig
from hirace_py.report import LaunchReport
from hirace_py.trace import parse

SOURCE = (Path(__file__).parent / "sync_kernels" / "modelled_soundly.cu").read_text()


def test_partial_mask_partner_is_reported_with_the_notice() -> None:
    # Lane 0 writes, lanes 0 and 1 pass __syncwarp(0x3), lane 1 reads.
    assert not oracle.check(parse("W 0.0.0; wsync 0.0 0x3; R 0.0.1", None)).racy
    out = np.zeros(1, np.int32)
    report = hirace_py.check(SOURCE, "masked_with_partner", 1, 32, [out], backend="cpu")
    launch = report.launches[0]
    assert [r.kind for r in launch.races] == ["read-write"]
    assert {n.code for n in launch.notices} == {"partial-syncwarp"}
    assert out[0] == 1


def test_fenced_last_block_is_reported_with_the_notice() -> None:
    trace = (
        "W 0.0.0 @p0; fence 0.0.0; GA 0.0.0 @n; W 1.0.0 @p1; fence 1.0.0; GA 1.0.0 @n; "
        "R 1.0.0 @p0; R 1.0.0 @p1"
    )
    assert not oracle.check(parse(trace)).racy
    part, count, out = np.zeros(4, np.int32), np.zeros(1, np.uint32), np.zeros(1, np.int32)
    report = hirace_py.check(SOURCE, "last_block_fence", 4, 32, [part, count, out], backend="cpu")
    launch = report.launches[0]
    assert {r.kind for r in launch.races} == {"read-write"}
    assert "fences" in {n.code for n in launch.notices}
    assert out[0] == 1 + 2 + 3 + 4


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
