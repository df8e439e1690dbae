"""Exact racing pairs from a replay log.

During a replay, every access to an element that raced in the first run is
logged with its site, thread, block and barrier clocks. Two logged accesses
race when, per docs/semantics.md section 1, they are by different threads, conflict,
and no barrier orders them. Barriers are collective, so clocks decide order
without a global event order: accesses of one block are ordered exactly when
their block-barrier clocks differ, or, in one lane group (the runtime's warp
level: aligned groups of 2^group_log2 lanes, whole warps by default,
docs/semantics.md 1.3), when their warp-barrier clocks differ; accesses of
different blocks are never ordered.

For each element and each pair of sites, one racing pair of accesses is kept
as the example, ordered by when the accesses happened (their position in the
log, which the runtime appends to in execution order): `first` is the
earlier access. `count` is the number of elements on which the pair races.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from hirace_py.fsm import Action
from hirace_py.oracle import conflicts

WARP_LOG2 = 5
"""log2 of the default lane group: the whole warp."""


@dataclass(frozen=True)
class LoggedAccess:
    site: int
    action: int
    tid: int
    block: int
    bc: int
    wc: int
    order: int = 0
    """Log position of the access's first occurrence: earlier accesses have smaller ones."""


@dataclass
class PairRace:
    """Sites a and b (a <= b) race on `count` elements; `first` and `second` are one
    racing pair of accesses on `element`, `first` the earlier."""

    element: int
    first: LoggedAccess
    second: LoggedAccess
    count: int = 1


def racing_pair(
    xs: list[LoggedAccess], ys: list[LoggedAccess], group_log2: int = WARP_LOG2
) -> tuple[LoggedAccess, LoggedAccess] | None:
    """One racing pair of accesses, one from xs and one from ys, earlier first; or None.

    xs and ys are accesses of two sites (possibly the same) to one element.
    """
    found = _any_racing_pair(xs, ys, group_log2)
    if found is None:
        return None
    x, y = found
    return (x, y) if x.order <= y.order else (y, x)


def _any_racing_pair(
    xs: list[LoggedAccess], ys: list[LoggedAccess], group_log2: int
) -> tuple[LoggedAccess, LoggedAccess] | None:
    ax, ay = Action(xs[0].action), Action(ys[0].action)
    if conflicts(ax, ay, False):
        by_block: dict[int, LoggedAccess] = {}
        for x in xs:
            by_block.setdefault(x.block, x)
        for y in ys:
            for block, x in by_block.items():
                if block != y.block:
                    return x, y
    if not conflicts(ax, ay, True):
        return None
    groups: dict[tuple[int, int], list[LoggedAccess]] = defaultdict(list)
    for x in xs:
        groups[(x.block, x.bc)].append(x)
    for y in ys:
        for x in groups.get((y.block, y.bc), ()):
            apart = x.tid >> group_log2 != y.tid >> group_log2
            if x.tid != y.tid and (apart or x.wc == y.wc):
                return x, y
    return None


def exact_pairs(
    records: np.ndarray, group_log2: int = WARP_LOG2
) -> dict[tuple[int, int], dict[int, PairRace]]:
    """Racing site pairs per element: {(site_a, site_b): {word: PairRace}}.

    `records` is a structured array with fields word, block, site, action,
    tid, bc, wc (the replay log); `group_log2` gives the lane groups the
    launch's warp clocks count barriers of (`Tables.group_log2`).
    """
    out: dict[tuple[int, int], dict[int, PairRace]] = defaultdict(dict)
    if records.size == 0:
        return out
    order = np.argsort(records["word"], kind="stable")
    rec = records[order]
    words = rec["word"]
    starts = np.flatnonzero(np.r_[True, words[1:] != words[:-1]])
    ends = np.r_[starts[1:], len(rec)]
    fields = ["site", "action", "tid", "block", "bc", "wc"]
    for s, e in zip(starts, ends, strict=True):
        # Repeats of one access are one access, at its first log position (the
        # stable sort kept each element's records in log order).
        unique, first = np.unique(rec[s:e][fields], return_index=True)
        by_site: dict[int, list[LoggedAccess]] = defaultdict(list)
        for u, at in zip(unique.tolist(), order[s + first].tolist(), strict=True):
            by_site[int(u[0])].append(LoggedAccess(*(int(v) for v in u), order=int(at)))
        sites = sorted(by_site)
        word = int(words[s])
        for i, a in enumerate(sites):
            for b in sites[i:]:
                found = racing_pair(by_site[a], by_site[b], group_log2)
                if found is not None:
                    out[(a, b)][word] = PairRace(word, found[0], found[1])
    return out
