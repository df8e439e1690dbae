"""The vector-clock oracle against a brute-force explicit happens-before graph.

The reference builds the event graph of docs/semantics.md section 1 literally: each
barrier is one node shared by its participants, program order links each
thread's consecutive events, and happens-before is reachability. It checks
every pair of accesses, so it is slow and obviously right.
"""

from __future__ import annotations

from hypothesis import given, settings

from hirace_py import oracle
from hirace_py.fsm import Action
from hirace_py.trace import BSYNC, WSYNC, Trace, parse
from tests.trace_strategies import traces


def brute_force_first_races(trace: Trace) -> dict[int, int]:
    """location index -> index of the event completing its first racing pair."""
    grid, n = trace.grid, len(trace)
    block, warp = grid.block_of(), grid.warp_of()
    succ: list[set[int]] = [set() for _ in range(n)]
    last_of_thread: dict[int, int] = {}
    for i in range(n):
        op, who = int(trace.ops[i]), int(trace.who[i])
        if op == BSYNC:
            members = [t for t in range(grid.threads) if block[t] == who]
        elif op == WSYNC:
            members = [t for t in range(grid.threads) if warp[t] == who]
        else:
            members = [who]
        for t in members:
            if t in last_of_thread:
                succ[last_of_thread[t]].add(i)
            last_of_thread[t] = i
    reach = [set() for _ in range(n)]
    for i in reversed(range(n)):
        for j in succ[i]:
            reach[i] |= {j} | reach[j]
    first: dict[int, int] = {}
    for j in range(n):
        if trace.ops[j] >= BSYNC:
            continue
        for i in range(j):
            if trace.ops[i] >= BSYNC or trace.locs[i] != trace.locs[j]:
                continue
            ti, tj = int(trace.who[i]), int(trace.who[j])
            if ti == tj or j in reach[i]:
                continue
            same = bool(block[ti] == block[tj])
            if oracle.conflicts(Action(int(trace.ops[i])), Action(int(trace.ops[j])), same):
                first.setdefault(int(trace.locs[j]), j)
                break
    return first


@settings(max_examples=400, deadline=None)
@given(traces(max_events=25))
def test_vector_clocks_match_explicit_happens_before(trace: Trace) -> None:
    verdict = oracle.check(trace)
    got = {i: int(at) for i, at in enumerate(verdict.race_at) if at >= 0}
    assert got == brute_force_first_races(trace)
    for race in verdict.races.values():
        assert race.first < race.second


def test_conflict_rules_of_design_section_3() -> None:
    R, W, BA, GA = Action
    assert not oracle.conflicts(R, R, True) and not oracle.conflicts(R, R, False)
    for a in Action:
        assert oracle.conflicts(W, a, True) and oracle.conflicts(a, W, False)
    for a in (BA, GA):
        for b in (BA, GA):
            assert not oracle.conflicts(a, b, True)
    assert not oracle.conflicts(GA, GA, False)
    assert oracle.conflicts(BA, GA, False) and oracle.conflicts(BA, BA, False)
    assert oracle.conflicts(R, GA, True) and oracle.conflicts(BA, R, True)


def test_first_racing_pair_is_reported() -> None:
    v = oracle.check(parse("R 0.0.0 @x; R 0.0.1 @y; bsync 0; W 0.0.1 @x; W 0.1.0 @y; W 0.0.0 @y"))
    assert set(v.races) == {"y"}
    assert (v.races["y"].first, v.races["y"].second) == (4, 5)


def test_chain_of_barriers_orders_across_warps_only_through_block_barrier() -> None:
    assert not oracle.check(parse("W 0.0.0; wsync 0.0; R 0.0.1; bsync 0; W 0.1.0")).racy
    assert oracle.check(parse("W 0.0.0; wsync 0.0; wsync 0.1; R 0.1.0")).racy
