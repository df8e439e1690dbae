"""The runtime's fast path, derived from the FSM table (never typed by hand).

An access whose shadow word would not change needs no store and no
compare-and-swap. The word is (state, site, last accessor's identity and
clocks); it is unchanged exactly when the accessor *is* the last accessor
with the same clocks (so the relation is S and the sync status U), at the
same site, and the table maps the state to itself for that action. That set
of (state, action, U, S) entries is `KEEPS`: the runtime tests one word
compare and one bit, and leaves memory untouched. Skipping such a store is
exact because the stored word, hence every later decision, is bit-identical
to what the slow path would have written. RACE is left out although it maps
to itself: during a replay every access to a RACE element is logged. The same
accessor at another site (the word differs in the state and site fields
only), in a state KEEPS holds, stores the word with its own site: the word
the table's decision installs, without reading the table.

A word in INIT has no last accessor: its successor depends on the action
alone (`FRESH`), so the runtime skips the relation and sync computation, and,
since no successor of INIT is RACE (checked here), the race test as well.
INIT is state 0 and no transition enters it (checked here), so a word is in
INIT exactly when it is zero: the runtime tests that first.

The in-line decision (an accessor of the stored accessor's block in the same
epochs: sync U, relation S, W or B) does not test for a word in RACE: the
table keeps RACE in RACE there (checked here), and the runtime's test of the
decided state sends it out of line, where a replay logs the access.

An access after one by another block is decided in line too, as sync U and
relation G: the table's relation-G entries of every action are the same at
the sync statuses the runtime's full decision can give (U, W and B; checked
here), so the stored clocks need no decoding.

The in-line decision reads `IN_LINE` (or `IN_LINE_HELD`), the table's sync-U
slice laid out by (action, state, relation): with the action a constant and
the relation a count of field boundaries the word's difference reaches, one
indexed load gives the next state. Its entries carry `OUT_OF_LINE` where the
decision must be taken out of line: a race (a replay logs it, a report is
made, a message may order it) and, in `IN_LINE_HELD`, which the CPU runtime
reads while some thread holds a release, a read that takes a word out of the
reads-only state (a message may make it the reader's alone). So one bit test
replaces the runtime's tests of both, and an entry without the bit is the
next state itself, ready to be or-ed into the word.
"""

from __future__ import annotations

from hirace_py import fsm

STATE_SET_BITS = 32
"""KEEPS masks are 32-bit: one bit per state (the word reserves 5 state bits)."""


def keeps(action: fsm.Action) -> int:
    """Bit s set when the same thread, in the same epochs, leaves state s as it is."""
    mask = 0
    for s in range(fsm.N_STATES):
        if s != fsm.RACE and fsm.step(s, action, fsm.Sync.U, fsm.Rel.S) == s:
            mask |= 1 << s
    return mask


def fresh(action: fsm.Action) -> int:
    """State after the first access to a location; the table's INIT row is uniform."""
    row = fsm.TRANSITIONS[fsm.INIT, action]
    if (row != row.flat[0]).any():
        raise AssertionError(f"INIT row of action {action.name} depends on sync or relation")
    if row.flat[0] == fsm.RACE:
        raise AssertionError(f"a first {action.name} races: the runtime's INIT path cannot say so")
    return int(row.flat[0])


assert fsm.N_STATES <= STATE_SET_BITS
assert fsm.INIT == 0 and (fsm.TRANSITIONS != fsm.INIT).all(), "a word in INIT must be all zero"
assert all(
    fsm.step(fsm.RACE, a, fsm.Sync.U, r) == fsm.RACE
    for a in fsm.Action
    for r in (fsm.Rel.S, fsm.Rel.W, fsm.Rel.B)
), "the in-line decision relies on RACE staying RACE"
assert all(
    len({fsm.step(s, a, y, fsm.Rel.G) for y in (fsm.Sync.U, fsm.Sync.W, fsm.Sync.B)}) == 1
    for s in range(fsm.N_STATES)
    for a in fsm.Action
), "the in-line decision of an access after another block's relies on it"
OUT_OF_LINE = 0x80
"""Flag of an `IN_LINE` entry that the runtime decides out of line (above the state bits)."""
assert 1 << fsm.STATE_BITS <= OUT_OF_LINE < 0x100


def in_line(held: bool) -> tuple[int, ...]:
    """Next states at sync U by (action, state, relation), flagged OUT_OF_LINE where
    the runtime decides out of line (`held`: while a thread holds a release)."""
    out = []
    for a in fsm.Action:
        for s in range(fsm.N_STATES):
            for r in fsm.Rel:
                nxt = fsm.step(s, a, fsm.Sync.U, r)
                message = held and fsm.adds_reader(s, a, nxt)
                out.append(nxt | (OUT_OF_LINE if nxt == fsm.RACE or message else 0))
    return tuple(out)


KEEPS: tuple[int, ...] = tuple(keeps(a) for a in fsm.Action)
IN_LINE: tuple[int, ...] = in_line(held=False)
IN_LINE_HELD: tuple[int, ...] = in_line(held=True)
FRESH: tuple[int, ...] = tuple(fresh(a) for a in fsm.Action)
