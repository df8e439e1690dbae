"""The two traps of docs/semantics.md section 2, and other named histories, step by step."""

from __future__ import annotations

from hirace_py import fsm, oracle
from hirace_py.replay import replay_trace
from hirace_py.trace import parse


def states(text: str) -> list[str]:
    trace = parse(text)
    return [fsm.STATES[s] for s in replay_trace(trace) if s >= 0]


def verdict(text: str) -> bool:
    return oracle.check(parse(text)).racy


def test_trap_read_barrier_then_block_atomics_is_race_free() -> None:
    text = "R 0.0.0; bsync 0; BA 0.0.1; BA 0.1.0"
    assert "RACE" not in states(text)
    assert not verdict(text)


def test_trap_write_warp_barrier_atomics_then_read_by_one_lane_is_a_race() -> None:
    text = "W 0.0.0; wsync 0.0; BA 0.0.1; BA 0.0.2; R 0.0.1"
    assert states(text)[-1] == "RACE"
    assert states(text)[-2] != "RACE"
    assert verdict(text)


def test_many_readers_then_a_writer_is_a_race_whoever_writes() -> None:
    readers = "; ".join(f"R 0.{w}.{lane}" for w in range(2) for lane in range(2))
    for writer in ("0.0.0", "0.1.1", "1.0.0"):
        assert states(f"{readers}; W {writer}")[-1] == "RACE"


def test_write_after_block_barrier_is_ordered_but_not_across_blocks() -> None:
    assert states("W 0.0.0; bsync 0; W 0.1.0")[-1] != "RACE"
    assert states("W 0.0.0; bsync 0; bsync 1; W 1.0.0")[-1] == "RACE"


def test_warp_barrier_orders_lanes_but_not_warps() -> None:
    assert states("W 0.0.0; wsync 0.0; R 0.0.1")[-1] != "RACE"
    assert states("W 0.0.0; wsync 0.0; R 0.1.0")[-1] == "RACE"


def test_device_atomics_across_blocks_do_not_race_block_atomics_do() -> None:
    assert states("GA 0.0.0; GA 1.0.0; GA 0.1.0")[-1] == "MB_G"
    assert states("BA 0.0.0; BA 1.0.0")[-1] == "RACE"
    assert states("GA 0.0.0; BA 1.0.0")[-1] == "RACE"
    assert states("BA 0.0.0; GA 0.0.1; BA 0.1.0")[-1] != "RACE"


def test_same_value_written_twice_still_races() -> None:
    assert states("W 0.0.0; W 0.0.1")[-1] == "RACE"


def test_own_history_never_races() -> None:
    assert "RACE" not in states("W 0.0.0; R 0.0.0; BA 0.0.0; GA 0.0.0; W 0.0.0")
