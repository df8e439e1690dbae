"""Turn a Rumur counterexample into a trace of ``hirace fsm --trace`` and check it in Python.

The model's rules, named with their parameters, are in the trace syntax
("W 0.0.1", "bsync 0", "wsync 0.1"), so the rules fired are the events. One thing needs care: where
the device compares clocks of two different blocks (or two different warps),
the model lets the comparison give any answer (murphi/README.md), and a
counterexample may rely on one. On the device such answers come from how many
barriers each block and warp passed earlier. So the translation prepends
barriers to the trace (before any access, where they order nothing) so that
the device's clocks give the model's sync at every access whose next state
depends on it. The counts come from a system of difference constraints, one
per such comparison, solved exactly (Bellman-Ford).

The trace is then replayed through the table as device code does
(`hirace_py.replay`) and compared with the happens-before oracle
(`hirace_py.oracle`): an independent confirmation that the table is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hirace_py import oracle
from hirace_py.errors import HiraceError
from hirace_py.fsm import INIT, RACE, STATES, Sync, flat_index
from hirace_py.murphi.rumur import Step
from hirace_py.replay import relation_table, replay_trace
from hirace_py.trace import BSYNC, GSYNC, WSYNC, Grid, Trace, parse

LAUNCHES = ("launch", "kernel end")
"""The start state and the rule that starts a fresh launch; each names the
thread the zeroed shadow word records as last accessor."""


@dataclass(frozen=True)
class Counterexample:
    """A counterexample as a trace on one location (@0).

    `padding` is the number of barriers prepended to set the clocks; it is
    None when no barrier counts give the device every sync the model chose
    (the trace is then the rules alone, and may not reproduce the failure).
    """

    trace: Trace
    padding: int | None

    @property
    def text(self) -> str:
        """The trace in the syntax of ``hirace fsm --trace``, without the default @0."""
        events = range(len(self.trace))
        return "; ".join(self.trace.format_event(i).removesuffix(" @0") for i in events)


@dataclass(frozen=True)
class Confirmation:
    """The counterexample replayed through the table and judged by the oracle.

    `rows` has one (event, table state, oracle verdict) per event, states
    and verdicts empty at barriers; `first_bad` is the first event after
    which the table's RACE-ness differs from the oracle's, or -1.
    """

    rows: tuple[tuple[str, str, str], ...]
    first_bad: int


def translate(steps: tuple[Step, ...], grid: Grid, table: np.ndarray) -> Counterexample:
    """The trace of the rules in `steps`, with leading barriers that realise the model's syncs.

    Rules before the last launch belong to an earlier launch, which starts the
    next one from scratch, so they are left out. The model lets the zeroed
    shadow word name any thread z (by symmetry, murphi/README.md); the device
    names thread 0.0.0, so blocks, warps and lanes are renamed (z's
    coordinate and 0 swapped in each) to make z thread 0.0.0.
    """
    starts = [i for i, step in enumerate(steps) if step.rule.startswith(LAUNCHES)]
    zero = (0, 0, 0)
    if starts:
        zero = _coords(steps[starts[-1]].rule)
        steps = steps[starts[-1] + 1 :]
    if not steps:
        # The start state satisfies both invariants, so a failure needs an event.
        raise HiraceError("the verifier's counterexample has no event after the last kernel end")
    rules = [_renamed(step.rule, zero) for step in steps]
    plain = parse("; ".join(rules), grid)
    counts = _barrier_counts(plain, [step.sync for step in steps], table)
    if counts is None:
        return Counterexample(plain, None)
    lead = [f"bsync {b}" for b in range(grid.blocks) for _ in range(counts[b])]
    lead += [
        f"wsync {w // grid.warps}.{w % grid.warps}"
        for w in range(grid.blocks * grid.warps)
        for _ in range(counts[grid.blocks + w])
    ]
    trace = parse("; ".join(lead + rules), grid)
    return Counterexample(trace, len(lead))


def _coords(rule: str) -> tuple[int, ...]:
    """The thread, block or warp coordinates a rule names ("W 1.0.1" -> (1, 0, 1))."""
    last = rule.rsplit(" ", 1)[-1]
    return tuple(int(c) for c in last.split(".")) if last[:1].isdigit() else ()


def _renamed(rule: str, zero: tuple[int, ...]) -> str:
    """`rule` with each coordinate equal to zero's swapped with 0 (and 0 with zero's)."""
    coords = _coords(rule)
    if not coords:
        return rule
    swapped = [0 if c == z else z if c == 0 else c for c, z in zip(coords, zero, strict=False)]
    return f"{rule.rsplit(' ', 1)[0]} {'.'.join(map(str, swapped))}"


def _barrier_counts(trace: Trace, syncs: list[int | None], table: np.ndarray) -> list[int] | None:
    """Barriers each block, then each warp, must pass before the trace; None if impossible.

    Variables: x[1 + b] for block b, x[1 + blocks + w] for warp w, and
    x[0] = 0 for the zeroed clocks of the initial shadow word. A clock read
    at an access is (barriers so far in the trace) + x[its block or warp];
    the last accessor's recorded clock is what it read then, or 0 with x[0]
    in the initial word. Each comparison whose answer changes the next state
    must give the model's answer; every x is at least x[0]. The counts
    returned are the least that do.
    """
    grid = trace.grid
    blocks, warps = grid.blocks, grid.blocks * grid.warps
    block_node = 1 + grid.block_of()
    warp_node = 1 + blocks + grid.warp_of()
    rel_of = relation_table(grid)
    count = [0] * (1 + blocks + warps)
    edges: list[tuple[int, int, int]] = []

    def greater(node: int, recorded: tuple[int, int], yes: bool) -> None:
        # clock(node) = count[node] + x[node] against recorded (rnode, c) = c + x[rnode]:
        # '>' is x[rnode] - x[node] <= count[node] - c - 1,
        # '<=' is x[node] - x[rnode] <= c - count[node].
        rnode, c = recorded
        if yes:
            edges.append((node, rnode, count[node] - c - 1))
        else:
            edges.append((rnode, node, c - count[node]))

    state, last = INIT, 0
    rec_b = rec_w = (0, 0)
    gsince = False
    for i, (op, who) in enumerate(zip(trace.ops.tolist(), trace.who.tolist(), strict=True)):
        if op == BSYNC:
            count[1 + who] += 1
            continue
        if op == WSYNC:
            count[1 + blocks + who] += 1
            continue
        if op == GSYNC:
            gsince = True
            continue
        rel = int(rel_of[who, last])
        nexts = [int(table[flat_index(state, op, y, rel)]) for y in Sync]
        sync = syncs[i]
        if sync is None:
            raise HiraceError(
                f"the verifier's rule {trace.format_event(i)!r} has no sync parameter"
            )
        y = Sync(sync)
        nb, nw = int(block_node[who]), int(warp_node[who])
        if (y == Sync.G) != gsince:
            return None
        if y != Sync.G and len({nexts[z] for z in Sync if z != Sync.G}) > 1:
            greater(nb, rec_b, y == Sync.B)
            if y != Sync.B:
                greater(nw, rec_w, y == Sync.W)
        state, last, gsince = nexts[y], who, False
        rec_b, rec_w = (nb, count[nb]), (nw, count[nw])
    return _solve(len(count), edges)


def _solve(n: int, edges: list[tuple[int, int, int]]) -> list[int] | None:
    """The least y[1:] >= 0 with y[0] = 0 and y[j] - y[i] <= w for each edge (i, j, w), or None.

    With z = -y the constraints read z[i] - z[j] <= w and z[i] - z[0] <= 0, so
    the greatest z with z[0] = 0, the least y, is the shortest distance from
    variable 0 along edges j -> i of weight w and 0 -> i of weight 0
    (Bellman-Ford). A negative cycle means no solution.
    """
    graph = [(j, i, w) for i, j, w in edges] + [(0, i, 0) for i in range(1, n)]
    dist: list[float] = [0.0] + [float("inf")] * (n - 1)
    for _ in range(n + 1):
        changed = False
        for u, v, w in graph:
            if dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
                changed = True
        if not changed:
            return [int(-d) for d in dist[1:]]
    return None


def confirm(cx: Counterexample, table: np.ndarray) -> Confirmation:
    """Replay the counterexample through `table` and compare with the oracle after every access."""
    trace = cx.trace
    states = replay_trace(trace, table)
    verdict = oracle.check(trace)
    rows = []
    first_bad = -1
    for i in range(len(trace)):
        event = trace.format_event(i).removesuffix(" @0")
        if trace.ops[i] >= BSYNC:
            rows.append((event, "", ""))
            continue
        racy = verdict.racy_after(i, 0)
        rows.append((event, STATES[int(states[i])], "race" if racy else "no race"))
        if first_bad < 0 and (int(states[i]) == RACE) != racy:
            first_bad = i
    return Confirmation(tuple(rows), first_bad)
