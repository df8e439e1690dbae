"""hirace_py.pairs against a brute-force enumeration of every pair of logged accesses.

The brute force states DESIGN.md section 3 directly: two accesses race when
they are by different threads, conflict, and no barrier orders them (same
block: equal block-barrier clocks, and a different warp or equal warp-barrier
clocks). `exact_pairs` must find exactly the racing site pairs per element,
and its example must be a racing pair, the earlier access first.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import hirace_py
from hirace_py.fsm import Action
from hirace_py.oracle import conflicts
from hirace_py.pairs import WARP_LOG2, LoggedAccess, exact_pairs
from hirace_py.report import to_text
from hirace_py.tracking import LOG_DTYPE

SITE_ACTIONS = (Action.R, Action.W, Action.BA, Action.GA, Action.R, Action.W)
"""Action of each site (a site's action is fixed by the source)."""


def races(x: LoggedAccess, y: LoggedAccess, group: int = 1 << WARP_LOG2) -> bool:
    """DESIGN.md section 3, pair by pair, with lane groups of `group` lanes."""
    same_block = x.block == y.block
    if same_block and x.tid == y.tid:
        return False
    if not conflicts(Action(x.action), Action(y.action), same_block):
        return False
    if not same_block:
        return True
    same_warp = x.tid // group == y.tid // group
    return x.bc == y.bc and (not same_warp or x.wc == y.wc)


@st.composite
def logs(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(0, 24))
    rec = np.zeros(n, LOG_DTYPE)
    for i in range(n):
        site = draw(st.integers(0, len(SITE_ACTIONS) - 1))
        rec[i] = (
            draw(st.sampled_from([8, 16, 24])),  # word
            draw(st.integers(0, 2)),  # block
            site,
            SITE_ACTIONS[site],
            draw(st.sampled_from([0, 1, 31, 32, 33, 64])),  # tid: warps 0, 0, 0, 1, 1, 2
            draw(st.integers(0, 2)),  # bc
            draw(st.integers(0, 2)),  # wc
            0,
        )
    return rec


def brute_force(rec: np.ndarray, group: int = 1 << WARP_LOG2) -> dict[int, set[tuple[int, int]]]:
    """Racing (site, site) pairs per word, from every pair of log records."""
    out: dict[int, set[tuple[int, int]]] = {}
    accesses = [
        (int(r["word"]), LoggedAccess(int(r["site"]), int(r["action"]), int(r["tid"]),
                                      int(r["block"]), int(r["bc"]), int(r["wc"]), i))
        for i, r in enumerate(rec)
    ]  # fmt: skip
    for (w1, x), (w2, y) in combinations_with_replacement(accesses, 2):
        if w1 == w2 and races(x, y, group):
            out.setdefault(w1, set()).add((min(x.site, y.site), max(x.site, y.site)))
    return out


@settings(max_examples=400, deadline=None)
@given(logs(), st.sampled_from([WARP_LOG2, 4, 0]))
def test_exact_pairs_match_brute_force(rec: np.ndarray, group_log2: int) -> None:
    """Whole warps, half warps (tids 0, 1 and 31 fall in different ones), single lanes."""
    group = 1 << group_log2
    found = exact_pairs(rec, group_log2)
    per_word: dict[int, set[tuple[int, int]]] = {}
    for pair, by_word in found.items():
        for word, example in by_word.items():
            per_word.setdefault(word, set()).add(pair)
            first, second = example.first, example.second
            assert example.element == word
            assert races(first, second, group), (pair, example)
            assert {first.site, second.site} == set(pair)
            assert first.order <= second.order
            # The example's accesses are really in the log, at the positions given.
            for a in (first, second):
                r = rec[a.order]
                assert (
                    int(r["word"]),
                    int(r["site"]),
                    int(r["tid"]),
                    int(r["block"]),
                    int(r["bc"]),
                    int(r["wc"]),
                ) == (word, a.site, a.tid, a.block, a.bc, a.wc)
    assert per_word == brute_force(rec, group)


def test_repeated_accesses_keep_their_first_log_position() -> None:
    rec = np.zeros(3, LOG_DTYPE)
    rec[0] = (8, 0, 1, Action.W, 5, 0, 0, 0)  # thread 5 writes
    rec[1] = (8, 0, 0, Action.R, 1, 0, 0, 0)  # thread 1 reads (lower site id)
    rec[2] = (8, 0, 1, Action.W, 5, 0, 0, 0)  # thread 5 writes again
    [[example]] = [list(v.values()) for v in exact_pairs(rec).values()]
    assert (example.first.site, example.first.order) == (1, 0)
    assert (example.second.site, example.second.order) == (0, 1)


def test_report_orders_the_pair_by_time_not_by_site() -> None:
    """Thread 0 writes, then thread 1 reads: the read's site comes first in the source,
    but the report names the write as the earlier access."""
    src = (
        "__global__ void k(int* a, int* out) {\n"
        "  if (threadIdx.x == 1) out[0] = a[0];\n"
        "  if (threadIdx.x == 0) a[0] = 1;\n"
        "}\n"
    )
    a, out = np.zeros(1, np.int32), np.zeros(1, np.int32)
    report = hirace_py.check(src, "k", 1, 2, [a, out], backend="cpu")
    [race] = report.races
    assert race.exact
    assert (race.first.site.action, race.first.thread, race.first.site.line) == ("W", (0, 0, 0), 3)
    assert (race.second.site.action, race.second.thread, race.second.site.line) == (
        "R", (1, 0, 0), 2)  # fmt: skip
    text = to_text(report)
    assert "Earlier Write at kernel.cu:3" in text and "by thread (0, 0, 0)" in text
    assert "Racing  Read at kernel.cu:2" in text
