"""The vector-clock oracle against a brute-force explicit happens-before graph.

The reference builds the event graph of docs/semantics.md section 1 literally: each
barrier is one node shared by its participants, program order links each
thread's consecutive events, and happens-before is reachability. It checks
every pair of accesses, so it is slow and obviously right.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings

from hirace_py import oracle
from hirace_py.fsm import Action
from hirace_py.trace import (
    ACQUIRE,
    BSYNC,
    FENCE,
    FENCE_BLOCK,
    GSYNC,
    RELEASE,
    WSYNC,
    Trace,
    action_of,
    order_of,
    parse,
)
from tests.trace_strategies import traces


def _scope_fits(u: int, t: int, scopes: tuple[str, ...], block: np.ndarray) -> bool:
    """Morally strong: every scope involved contains both threads."""
    return block[u] == block[t] or all(s == "device" for s in scopes)


def _sync_edges(trace: Trace) -> list[tuple[int, int]]:
    """Synchronizes-with edges of docs/semantics.md section 1.6, pair by pair."""
    block = trace.grid.block_of()
    n = len(trace)
    ops, who = trace.ops.tolist(), trace.who.tolist()
    fences = [i for i in range(n) if ops[i] in (FENCE, FENCE_BLOCK)]
    atomics = [i for i in range(n) if ops[i] < BSYNC and action_of(ops[i]) >= Action.BA]

    def scope(i: int) -> str:
        op = ops[i]
        block_scoped = op == FENCE_BLOCK or (op < BSYNC and action_of(op) in (Action.BA, Action.BL))
        return "block" if block_scoped else "device"

    edges = []
    for r in atomics:
        if action_of(ops[r]) in (Action.BL, Action.GL):
            continue  # a load writes nothing: no release
        u = who[r]
        releases = [(f, (scope(f), scope(r))) for f in fences if f < r and who[f] == u]
        if order_of(ops[r]) & RELEASE:
            releases.append((r, (scope(r),)))
        for a in atomics:
            if a <= r or trace.locs[a] != trace.locs[r]:
                continue
            t = who[a]
            acquires = [(g, (scope(g), scope(a))) for g in fences if g > a and who[g] == t]
            if order_of(ops[a]) & ACQUIRE:
                acquires.append((a, (scope(a),)))
            for p, pscopes in releases:
                for q, qscopes in acquires:
                    if _scope_fits(u, t, pscopes + qscopes, block):
                        edges.append((p, q))
                legacy = ops[p] == FENCE and scope(r) == "device" and scope(a) == "device"
                if legacy:
                    edges.append((p, a))
    return edges


def _strong(i: int, j: int, trace: Trace) -> bool:
    """Morally strong (PTX): one thread, or two atomics whose scopes contain both threads."""
    ops, who, block = trace.ops, trace.who, trace.grid.block_of()
    if who[i] == who[j]:
        return True
    kinds = [action_of(int(ops[k])) for k in (i, j)]
    if min(kinds) < Action.BA:
        return False
    device = (Action.GA, Action.GL)
    return bool(block[who[i]] == block[who[j]]) or all(k in device for k in kinds)


def _observation_edges(trace: Trace) -> list[tuple[int, int]]:
    """(w, a): write w precedes atomic a in observation order (docs/semantics.md 1.6).

    Literally: a reads the latest write of its location before it (trace
    order is the coherence order); w precedes a when a reads w and the two
    are morally strong, or w precedes an atomic read-modify-write z (every
    atomic here is one, loads included) that a reads, morally strong, in the
    same sense.
    """
    n = len(trace)
    ops = [int(o) for o in trace.ops]
    access = [i for i in range(n) if ops[i] < BSYNC]
    writes = [i for i in access if action_of(ops[i]) != Action.R]
    edges = []
    for a in writes:
        if action_of(ops[a]) < Action.BA:
            continue
        reader = a
        while True:
            earlier = [w for w in writes if w < reader and trace.locs[w] == trace.locs[a]]
            if not earlier or not _strong(earlier[-1], reader, trace):
                break
            edges.append((earlier[-1], a))
            if action_of(ops[earlier[-1]]) < Action.BA:
                break
            reader = earlier[-1]
    return edges


def brute_force_first_races(trace: Trace) -> dict[int, int]:
    """location index -> index of the event completing its first racing pair."""
    grid, n = trace.grid, len(trace)
    block, warp, lane = grid.block_of(), grid.warp_of(), grid.lane_of()
    succ: list[set[int]] = [set() for _ in range(n)]
    last_of_thread: dict[int, int] = {}
    for i in range(n):
        op, who = int(trace.ops[i]), int(trace.who[i])
        mask = int(trace.locs[i]) or grid.full_mask
        if op == BSYNC:
            members = [t for t in range(grid.threads) if block[t] == who]
        elif op == WSYNC:
            members = [t for t in range(grid.threads) if warp[t] == who and mask >> lane[t] & 1]
        elif op == GSYNC:
            members = list(range(grid.threads))
        else:
            members = [who]
        for t in members:
            if t in last_of_thread:
                succ[last_of_thread[t]].add(i)
            last_of_thread[t] = i
    for p, q in _sync_edges(trace):
        succ[p].add(q)
    reach: list[set[int]] = [set() for _ in range(n)]
    for i in reversed(range(n)):
        for j in succ[i]:
            reach[i] |= {j} | reach[j]
    # Causality order (PTX): happens-before, and observation then happens-before.
    for x, a in _observation_edges(trace):
        reach[x] |= reach[a]
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
            a, b = Action(action_of(int(trace.ops[i]))), Action(action_of(int(trace.ops[j])))
            if oracle.conflicts(a, b, same):
                first.setdefault(int(trace.locs[j]), j)
                break
    return first


@settings(max_examples=400, deadline=None)
@given(traces(max_events=25, extended=True))
def test_vector_clocks_match_explicit_happens_before(trace: Trace) -> None:
    verdict = oracle.check(trace)
    got = {i: int(at) for i, at in enumerate(verdict.race_at) if at >= 0}
    assert got == brute_force_first_races(trace)
    for race in verdict.races.values():
        assert race.first < race.second


def test_conflict_rules_of_design_section_3() -> None:
    R, W, BA, GA, _, _ = Action
    assert not oracle.conflicts(R, R, True) and not oracle.conflicts(R, R, False)
    for a in Action:
        assert oracle.conflicts(W, a, True) and oracle.conflicts(a, W, False)
    for a in (BA, GA):
        for b in (BA, GA):
            assert not oracle.conflicts(a, b, True)
    assert not oracle.conflicts(GA, GA, False)
    assert oracle.conflicts(BA, GA, False) and oracle.conflicts(BA, BA, False)
    assert oracle.conflicts(R, GA, True) and oracle.conflicts(BA, R, True)



def test_conflict_rules_of_atomic_loads() -> None:
    """docs/semantics.md 1.5: a load is a read (no conflict with reads or
    loads, anywhere) and an atomic (no conflict with atomics whose scopes
    cover both threads)."""
    R, W, BA, GA, BL, GL = Action
    for load in (BL, GL):
        for other in (R, BL, GL):
            for same in (True, False):
                assert not oracle.conflicts(load, other, same)
                assert not oracle.conflicts(other, load, same)
        assert oracle.conflicts(load, W, True) and oracle.conflicts(W, load, False)
        assert not oracle.conflicts(load, BA, True) and not oracle.conflicts(GA, load, True)
        assert oracle.conflicts(load, BA, False) and oracle.conflicts(BA, load, False)
    assert not oracle.conflicts(GL, GA, False) and not oracle.conflicts(GA, GL, False)
    assert oracle.conflicts(BL, GA, False) and oracle.conflicts(GA, BL, False)


def test_atomic_loads_in_traces() -> None:
    # A load races with no read and no load, and with no device-scope atomic.
    assert not racy("GL 0.0.0; R 1.0.0; BL 0.0.1; GL 1.0.0; R 0.0.1")
    assert not racy("GL 0.0.0; GA 1.0.0; GL 1.0.1; GA 0.0.1")
    # It races with a plain write, and across blocks with a block-scope atomic.
    assert racy("GL 0.0.0; W 1.0.0") and racy("W 0.0.0; BL 0.0.1")
    assert racy("BL 0.0.0; GA 1.0.0") and racy("GL 0.0.0; BA 1.0.0")
    # It observes: the atomic write it reads precedes its thread's later accesses.
    assert not racy("GA 0.0.0; GL 1.0.0; W 1.0.0")
    assert racy("GA 0.0.0; GL 1.0.0; W 1.0.1")
    # A load releases nothing: the data before it is not published.
    assert racy("W 0.0.0 @d; fence 0.0.0; GL 0.0.0 @f; GA.acq 1.0.0 @f; R 1.0.0 @d")
    assert not racy("W 0.0.0 @d; fence 0.0.0; GA 0.0.0 @f; GL.acq 1.0.0 @f; R 1.0.0 @d")


def test_first_racing_pair_is_reported() -> None:
    v = oracle.check(parse("R 0.0.0 @x; R 0.0.1 @y; bsync 0; W 0.0.1 @x; W 0.1.0 @y; W 0.0.0 @y"))
    assert set(v.races) == {"y"}
    assert (v.races["y"].first, v.races["y"].second) == (4, 5)


def test_chain_of_barriers_orders_across_warps_only_through_block_barrier() -> None:
    assert not oracle.check(parse("W 0.0.0; wsync 0.0; R 0.0.1; bsync 0; W 0.1.0")).racy
    assert oracle.check(parse("W 0.0.0; wsync 0.0; wsync 0.1; R 0.1.0")).racy


def racy(text: str) -> bool:
    verdict = oracle.check(parse(text))
    assert {i for i, at in enumerate(verdict.race_at) if at >= 0} == set(
        brute_force_first_races(parse(text))
    )
    return verdict.racy


def test_masked_warp_barrier_orders_only_its_lanes() -> None:
    assert not racy("W 0.0.0; wsync 0.0 0x3; R 0.0.1; wsync 0.0 0x7; W 0.0.2")
    assert racy("W 0.0.0; wsync 0.0 0x6; R 0.0.1")
    assert racy("R 0.0.0; R 0.0.1; wsync 0.0 0x6; W 0.0.2")
    assert not racy("R 0.0.0; R 0.0.1; wsync 0.0 0x3; wsync 0.0 0x6; W 0.0.2 # through lane 1")
    assert racy("R 0.0.0; R 0.0.1; wsync 0.0 0x6; wsync 0.0 0x3; W 0.0.2 # wrong order")


def test_grid_barrier_orders_every_block() -> None:
    assert not racy("W 0.0.0; W 1.1.1 @y; gsync; R 1.0.0; W 0.0.1 @y")
    assert racy("W 0.0.0; bsync 0; bsync 1; R 1.0.0")


def test_message_passing_per_section_1_6() -> None:
    mp = "W 0.0.0 @d; {rel}; {acq}; R 1.0.0 @d"
    writer_fence = "fence 0.0.0; GA 0.0.0 @f"
    assert not racy(mp.format(rel=writer_fence, acq="GA.acq 1.0.0 @f"))
    assert not racy(mp.format(rel="GA.rel 0.0.0 @f", acq="GA.acq 1.0.0 @f"))
    assert not racy(mp.format(rel="GA.rel 0.0.0 @f", acq="GA 1.0.0 @f; fence 1.0.0"))
    # The legacy fence idiom: a relaxed observer of a device-fence release.
    assert not racy(mp.format(rel=writer_fence, acq="GA 1.0.0 @f"))
    # Relaxed atomics without fences order nothing; a fence alone neither.
    assert racy(mp.format(rel="GA.rel 0.0.0 @f", acq="GA 1.0.0 @f"))
    assert racy(mp.format(rel="GA 0.0.0 @f", acq="GA.acq 1.0.0 @f"))
    assert racy(mp.format(rel="fence 0.0.0", acq="fence 1.0.0"))
    # Block scope synchronizes one block only.
    assert racy(mp.format(rel="fence.b 0.0.0; GA 0.0.0 @f", acq="GA.acq 1.0.0 @f"))
    assert racy(mp.format(rel="GA.rel 0.0.0 @f", acq="GA 1.0.0 @f; fence.b 1.0.0"))
    assert not racy("W 0.0.0 @d; fence.b 0.0.0; BA 0.0.0 @f; BA.acq 0.1.0 @f; R 0.1.0 @d")
    # Only releases made before the observing atomic count.
    assert racy("GA.acq 1.0.0 @f; W 0.0.0 @d; GA.rel 0.0.0 @f; R 1.0.0 @d")
    # Release sequences continue through other threads' atomics.
    assert not racy("W 0.0.0 @d; GA.rel 0.0.0 @f; GA 2.0.0 @f; GA.acq 1.0.0 @f; R 1.0.0 @d")
    # Writes after the release are not covered.
    assert racy("GA.rel 0.0.0 @f; W 0.0.0 @d; GA.acq 1.0.0 @f; R 1.0.0 @d")


def test_trace_text_round_trips() -> None:
    text = (
        "W 0.0.0 @x; fence.b 0.0.1; GA.ar 1.0.2 @f; BA.acq 0.0.0 @f; wsync 0.0 0x5; "
        "wsync 1.0; gsync; fence 1.0.1; bsync 1; GA.rel 1.0.0 @f"
    )
    assert parse(text).format() == text


def test_observation_orders_the_observed_atomic_writes() -> None:
    """PTX causality order: an atomic write precedes what follows an atomic
    that observed it through morally strong read-modify-writes (1.6)."""
    assert not racy("GA 0.0.0; GA 1.0.0; W 1.0.0 # the last block's reset")
    assert not racy("GA 0.0.0; GA 0.0.1; R 0.0.1")
    assert not racy("BA 0.0.0; BA 0.1.0; W 0.1.0")
    assert not racy("GA 0.0.0; GA 2.0.0; GA 1.0.0; W 1.0.0 # through a chain")
    assert not racy("GA 0.0.0; GA 1.0.0; bsync 1; W 1.0.1 # then by a barrier")
    assert not racy("GA 0.0.0; GA 1.0.0; BA 1.0.0")
    # Not observed: a later atomic, a thread after no observer, an observer
    # that was not the atomic's reader, a chain broken by a plain write.
    assert racy("GA 0.0.0; GA 1.0.0; GA 0.0.1; W 1.0.0")
    assert racy("GA 0.0.0; GA 1.0.0; W 1.0.1")
    assert racy("GA 1.0.0; GA 0.0.0; W 1.0.0")
    assert racy("GA 0.0.0; W 0.0.1; GA 0.0.1; R 0.0.0")
    # Only the atomic writes are ordered, not what came before them.
    assert racy("W 0.0.0 @d; GA 0.0.0 @f; GA 1.0.0 @f; R 1.0.0 @d")
    # A block-scope atomic is not morally strong with another block's thread.
    assert racy("BA 0.0.0; GA 1.0.0; W 1.0.0")
    assert racy("GA 0.0.0; BA 1.0.0; W 1.0.0")
    # Observation then happens-before does not compose with a second observation.
    text = "GA 0.0.0 @f; GA 1.0.0 @f; GA 1.0.0 @g; GA 2.0.0 @g; R 2.0.0 @f"
    assert oracle.check(parse(text)).races["f"].second == 4
    assert racy(text)
