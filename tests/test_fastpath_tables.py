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


def test_a_held_release_also_sends_reads_that_add_a_reader_to_an_ordered_history() -> None:
    extra = set()
    for a, s, r in every_entry():
        plain = entry(fastpath.IN_LINE, a, s, r) & fastpath.OUT_OF_LINE
        held = entry(fastpath.IN_LINE_HELD, a, s, r) & fastpath.OUT_OF_LINE
        assert not plain or held, "the held table sends out of line at least what the other does"
        if held and not plain:
            extra.add((a, s, r))
    nxt = {k: fsm.step(k[1], k[0], fsm.Sync.U, k[2]) for k in every_entry()}
    ordered = fsm.ORDERED_BEFORE_LAST
    want = {
        k
        for k, n in nxt.items()
        if k[0] == fsm.Action.R
        and k[1] in ordered
        and fsm.message_read(k[1]) in ordered
        and n not in ordered
        and n != fsm.RACE
    }
    assert extra == want, "a read that adds a reader to an ordered history is the message case"
    # Both message cases the runtime had before these were asked: a second
    # reader of reads, and one of reads after a write and a barrier (X_Rw_R1).
    assert {fsm.STATES[s] for _, s, _ in want} >= {"R_Rw_R1", "X_Rw_R1"}
    assert all(r != fsm.Rel.S for _, _, r in want), "the last accessor's own read adds no reader"


def test_a_message_read_leaves_an_ordered_history_of_reads_classes() -> None:
    # What makes message_read sound for a read the table admits: the state
    # is ordered before the reader, and every class of it that admits a read
    # is the class of reads (so it admits only what conflicts with no read).
    reads = fsm.SUMMARIES[fsm.step(fsm.INIT, fsm.Action.R, fsm.Sync.U, fsm.Rel.S)]
    for s in fsm.MESSAGE_READERS:
        m = fsm.SUMMARIES[fsm.message_read(s)]
        assert fsm.message_read(s) in fsm.ORDERED_BEFORE_LAST
        for cls, of_reads in ((m.cross, reads.cross), (m.block, reads.block), (m.warp, reads.warp)):
            assert fsm.Action.R not in cls or cls == of_reads, fsm.STATES[s]


def test_the_flag_lies_above_every_state() -> None:
    assert fastpath.OUT_OF_LINE >= 1 << fsm.STATE_BITS
    assert all(v & ~fastpath.OUT_OF_LINE < fsm.N_STATES for v in fastpath.IN_LINE_HELD)
