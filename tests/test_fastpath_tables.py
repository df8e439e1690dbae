"""The runtime's in-line tables (hirace_py.fastpath) against the FSM table, entry by entry.

The C++ side of the same decisions is checked by test_step_cxx (every in-line
decision against the full one, HIRACE_CHECK_FAST) and test_messages (a read
the held table sends out of line is one a message may order).
"""

from __future__ import annotations

import itertools

from hirace_py import fastpath, fsm


def entry(table: tuple[int, ...], action: int, state: int, rel: int) -> int:
    """The entry the runtime reads: (action * states + state) * 4 + rel."""
    return table[(action * fsm.N_STATES + state) * 4 + rel]


def every_entry() -> itertools.product:
    return itertools.product(fsm.Action, range(fsm.N_STATES), fsm.Rel)


def test_tables_cover_every_action_state_and_relation() -> None:
    size = len(fsm.Action) * fsm.N_STATES * len(fsm.Rel)
    assert len(fastpath.IN_LINE) == len(fastpath.IN_LINE_HELD) == size


def test_an_entry_is_the_tables_next_state_at_sync_u() -> None:
    for table in (fastpath.IN_LINE, fastpath.IN_LINE_HELD):
        for a, s, r in every_entry():
            want = fsm.step(s, a, fsm.Sync.U, r)
            assert entry(table, a, s, r) & ~fastpath.OUT_OF_LINE == want, (a.name, s, r.name)


def test_races_and_only_races_go_out_of_line_while_no_release_is_held() -> None:
    for a, s, r in every_entry():
        flagged = bool(entry(fastpath.IN_LINE, a, s, r) & fastpath.OUT_OF_LINE)
        assert flagged == (fsm.step(s, a, fsm.Sync.U, r) == fsm.RACE), (a.name, s, r.name)


def test_a_held_release_also_sends_reads_that_leave_the_reads_only_state() -> None:
    extra = set()
    for a, s, r in every_entry():
        plain = entry(fastpath.IN_LINE, a, s, r) & fastpath.OUT_OF_LINE
        held = entry(fastpath.IN_LINE_HELD, a, s, r) & fastpath.OUT_OF_LINE
        assert not plain or held, "the held table sends out of line at least what the other does"
        if held and not plain:
            extra.add((a, s, r))
    nxt = {k: fsm.step(k[1], k[0], fsm.Sync.U, k[2]) for k in every_entry()}
    reads = fsm.READS_STATE
    want = {
        k
        for k, n in nxt.items()
        if k[0] == fsm.Action.R and k[1] == reads and n not in (reads, fsm.RACE)
    }
    assert extra == want and want, "a second reader of a reads-only word is the message case"


def test_the_flag_lies_above_every_state() -> None:
    assert fastpath.OUT_OF_LINE >= 1 << fsm.STATE_BITS
    assert all(v & ~fastpath.OUT_OF_LINE < fsm.N_STATES for v in fastpath.IN_LINE_HELD)
