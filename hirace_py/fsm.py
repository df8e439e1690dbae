"""The race-detection finite-state machine: states, their meanings, and the table.

This module is the single source of truth for the FSM. Every header, the Murphi
model and the CSV/JSON/DOT exports are rendered from `TRANSITIONS` and `STATES`.

How the table is made
---------------------
A state is a *summary* of the access history of one memory location, exact
enough to decide whether the next access races (docs/semantics.md sections 1 and 2).
The summary is derived from three facts about race-free histories:

* Accesses of different blocks are never ordered, so a race-free history that
  spans two or more blocks consists only of reads or only of device-scope
  atomics (GA). Any other pair of kinds from different blocks conflicts.
* Inside one block, the accesses since its last ``__syncthreads`` (the *block
  epoch*) that come from two or more warps are unordered with each other, so
  they are all reads or all atomics (two atomics of one block never conflict).
* Inside one warp, the accesses since its last ``__syncwarp`` (the *warp
  epoch*) by two or more threads are, likewise, all reads or all atomics.

So a non-race state of a single-block history records: the class of the whole
history as seen from another block, the class of the block epoch as seen from
another warp of the block and whether it spans several warps, and, when it
does not, the class of the warp epoch and whether it spans several threads. A
class is the set of actions another thread may make without conflicting with
any access of the set (the class of a union is the intersection): across
blocks ``R`` (reads and atomic loads), ``G`` (device-scope atomics), ``L``
(device-scope loads), ``X`` (nothing); within a block ``R``, ``A`` (atomics),
``L`` (loads), ``X``. The last accessor's identity and clocks, kept beside
the state in the shadow word, tell the next access whether a
``__syncthreads`` (sync B) or a ``__syncwarp`` (sync W) separates it from the
*most recent* access, which is all the epochs need: every earlier access of
the block precedes the most recent one. A grid barrier (sync G) orders every
earlier access of every block, so after one the history starts over.
Observation order (docs/semantics.md 1.6) lets an atomic that observed the
history cover it: a plain access ordered after it races with nothing before.

`successor` states these rules once; `_derive` explores every summary reachable
from INIT, and the table is what it finds. The derivation asserts that no two
states are equivalent (the automaton is minimal), so the state count is the
number this semantics needs: see `docs/fsm.md`.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import IntEnum

import numpy as np


class Action(IntEnum):
    """A memory action: plain read/write, block- or device-scope atomic
    read-modify-write, block- or device-scope atomic load."""

    R = 0
    W = 1
    BA = 2
    GA = 3
    BL = 4
    GL = 5


ATOMICS = frozenset({Action.BA, Action.GA, Action.BL, Action.GL})
"""Every atomic action (docs/semantics.md 1.2)."""
LOADS = frozenset({Action.BL, Action.GL})
"""Atomic loads: atomics that read and do not write."""


class Sync(IntEnum):
    """What separates the new access from the last one, as the clocks tell.

    G: the accessor has passed more grid barriers (``this_grid().sync()``)
    than the last accessor had; B: not G, but more ``__syncthreads``; W:
    neither, but more full-warp ``__syncwarp``; U: none. Clocks are compared
    whatever the relation, so the table must ignore syncs that cannot order
    (sync B across blocks, sync W across warps).
    """

    U = 0
    W = 1
    B = 2
    G = 3


class Rel(IntEnum):
    """Relation of the new accessor to the last: same thread, warp, block, or other."""

    S = 0
    W = 1
    B = 2
    G = 3


def _conflicts(a: Action, b: Action, same_block: bool) -> bool:
    """docs/semantics.md 1.5: whether a and b by two different threads conflict."""
    if a not in ATOMICS or b not in ATOMICS:
        return a not in (Action.R, *LOADS) or b not in (Action.R, *LOADS)
    if a in LOADS and b in LOADS:
        return False
    return not same_block and not {a, b} <= {Action.GA, Action.GL}


# A class of a set of accesses is the set of actions another thread may make
# without conflicting with any of them: across blocks (`_CROSS_OF`) or within
# the block (`_LOCAL_OF`). The class of a union is the intersection.
_CROSS_OF = {a: frozenset(b for b in Action if not _conflicts(a, b, False)) for a in Action}
_LOCAL_OF = {a: frozenset(b for b in Action if not _conflicts(a, b, True)) for a in Action}
_CROSS_LETTER = {
    _CROSS_OF[Action.R]: "R", frozenset(): "X", _CROSS_OF[Action.GA]: "G",
    _CROSS_OF[Action.GL]: "L", _CROSS_OF[Action.R] & _CROSS_OF[Action.GA]: "M",
}  # fmt: skip
_LOCAL_LETTER = {
    _LOCAL_OF[Action.R]: "R", frozenset(): "X", _LOCAL_OF[Action.GA]: "A",
    _LOCAL_OF[Action.GL]: "L", _LOCAL_OF[Action.R] & _LOCAL_OF[Action.GA]: "M",
}  # fmt: skip
_CROSS_WORDS = {
    "R": "only reads and atomic loads",
    "G": "only device-scope atomics, read-modify-writes among them",
    "L": "only device-scope atomic loads",
    "M": "reads and device-scope atomics, both",
    "X": "mixed kinds or a write or a block-scope atomic",
}
_LOCAL_WORDS = {
    "R": "only reads and atomic loads",
    "A": "only atomics, read-modify-writes among them",
    "L": "only atomic loads",
    "M": "plain reads and atomic read-modify-writes, both",
    "X": "mixed kinds or a write",
}


@dataclass(frozen=True)
class Summary:
    """What a non-initial state knows about the history of one location.

    kind is "race", "multi" (accesses from two or more blocks) or "single"
    (all accesses by the last accessor's block, or ordered before the last
    access). For "multi", `cross` is the class of the history and `covered`
    says whether its last access is an atomic that every earlier access
    precedes in causality order. For "single": `cross` classifies the whole
    history; `block` the block epoch (accesses since the block's last
    ``__syncthreads``), `warps` whether that epoch spans several warps; when
    it does not, `warp` classifies the warp epoch (accesses since the last
    ``__syncwarp`` of the last accessor's warp) and `threads` says whether it
    spans several threads (otherwise all of it is by the last accessor).
    """

    kind: str
    cross: frozenset = frozenset()
    block: frozenset = frozenset()
    warps: bool = False
    warp: frozenset = frozenset()
    threads: bool = False
    covered: bool = False

    @property
    def name(self) -> str:
        if self.kind == "race":
            return "RACE"
        if self.kind == "multi":
            cross = _CROSS_LETTER[self.cross]
            # MB_G is covered and MB_R is not whenever no atomic load is involved.
            if self.covered != (cross == "G"):
                cross += "o" if self.covered else "u"
            return f"MB_{cross}"
        cross, blk = _CROSS_LETTER[self.cross], _LOCAL_LETTER[self.block]
        if self.warps:
            return f"{cross}_{blk}m"
        warp = _LOCAL_LETTER[self.warp]
        if self.threads:
            return f"{cross}_{blk}w_{warp}n"
        if warp == "A":
            return f"{cross}_{'A' if blk == 'A' else blk + 'w_A'}"
        return f"{cross}_{blk}w_{warp}1"

    def meaning(self) -> str:
        """The state's meaning as a predicate over the history of the location."""
        if self.kind == "race":
            return "Two conflicting accesses unordered by happens-before have occurred."
        if self.kind == "multi":
            last = (
                "; the last one is an atomic that every earlier access precedes in "
                "causality order (it observed them)"
                if self.covered
                else ""
            )
            return (
                "No race. Accesses come from two or more blocks and are "
                f"{_CROSS_WORDS[_CROSS_LETTER[self.cross]]}{last}."
            )
        where = (
            "All accesses are by the last accessor's block or precede the last "
            "access in causality order (an atomic observed them)"
        )
        block = _LOCAL_WORDS[_LOCAL_LETTER[self.block]]
        text = f"No race. {where}; all of them: {_CROSS_WORDS[_CROSS_LETTER[self.cross]]}; "
        text += f"since that block's last __syncthreads: {block}, "
        if self.warps:
            return text + "from two or more warps."
        who = "two or more threads" if self.threads else "the last accessor alone"
        warp = _LOCAL_WORDS[_LOCAL_LETTER[self.warp]]
        return (
            text + "all by the last accessor's warp or preceding its last access; since "
            f"that warp's last __syncwarp: {warp}, by {who}."
        )


INIT_SUMMARY = Summary("init")
RACE_SUMMARY = Summary("race")


def _fresh(cross: frozenset, action: Action) -> Summary:
    """History whose block epoch is just this access (first access, or after a barrier)."""
    local = _LOCAL_OF[action]
    return Summary("single", cross & _CROSS_OF[action], local, False, local, False)  # fmt: skip


def _covered(s: Summary) -> bool:
    """Whether every access of a history with summary `s` precedes, in
    causality order, whatever happens after its last one: one block, one warp
    since the block's last ``__syncthreads``, the last accessor alone since
    that warp's last ``__syncwarp``; or the last access is an atomic that
    observed every earlier access it does not follow (docs/semantics.md 1.6)."""
    if s.kind == "multi":
        return s.covered
    return s.kind == "single" and not s.warps and not s.threads


def _after_last(sync: Sync, rel: Rel) -> bool:
    """Whether the clocks order the new access after the last one."""
    return rel == Rel.S or (rel == Rel.W and sync >= Sync.W) or (rel != Rel.G and sync == Sync.B)


def successor(s: Summary, action: Action, sync: Sync, rel: Rel) -> Summary:
    """The summary after one more access: the rules the whole table is derived from."""
    return _coarse(_successor(s, action, sync, rel))


MIXED = (_CROSS_OF[Action.R] & _CROSS_OF[Action.GA], _LOCAL_OF[Action.R] & _LOCAL_OF[Action.GA])
"""The classes (cross-block, local) of a set holding both a plain read and an
atomic read-modify-write (no write): only an atomic load may follow them
unordered. `_coarse` reads them as X, the one place the table is not exact."""


def _coarse(s: Summary) -> Summary:
    """`s` with a mixed class (`MIXED`) read as X: sound (X admits nothing, so
    the table may report a race the history does not have, never miss one),
    and it keeps the table within the 32 states the shadow word holds
    (docs/fsm.md: exact, it would need 78)."""
    if s.kind not in ("single", "multi"):
        return s
    cross, local = MIXED
    return Summary(
        s.kind,
        frozenset() if s.cross == cross else s.cross,
        frozenset() if s.block == local else s.block,
        s.warps,
        frozenset() if s.warp == local else s.warp,
        s.threads,
        s.covered,
    )


def _successor(s: Summary, action: Action, sync: Sync, rel: Rel) -> Summary:
    """`successor` before the mixed classes are coarsened."""
    following = _barriers_and_program_order(s, action, sync, rel)
    after = _after_last(sync, rel)
    if following is RACE_SUMMARY:
        if action not in (Action.BA, Action.GA) and after and _covered(s):
            return _observed(s, action, sync)
        return RACE_SUMMARY
    if following.kind == "init" or _covered(following) or action not in ATOMICS:
        return following
    # An atomic with accesses it does not follow covers them when it follows
    # the last access, which covered everything, or when they are all
    # atomics (read-modify-writes and loads), which it observes
    # (docs/semantics.md 1.6: every atomic reads the latest write, and, like
    # a read-modify-write, is read by the next).
    if (after and _covered(s)) or _atomics_only(following):
        return _collapse(following)
    return following


def _atomics_only(s: Summary) -> bool:
    """Whether every access of `s` that a new access may be unordered with is
    an atomic that observes, or is observed by, the new access: a class that
    admits no plain read and admits a read-modify-write of the same scope
    reach (a block-scope load of another block is not morally strong)."""
    if s.kind == "multi":
        return s.cross in (_CROSS_OF[Action.GA], _CROSS_OF[Action.GL])
    cls = s.block if s.warps else s.warp
    return cls in (_LOCAL_OF[Action.GA], _LOCAL_OF[Action.GL])


def _collapse(s: Summary) -> Summary:
    """A history whose last access is an atomic that covers everything before it.

    Whatever warps or threads made the accesses since the last barrier, a
    plain access races with them exactly when it is not ordered after the
    last one, and another access races exactly when it conflicts with one of
    them (their class says which). So the epochs need no span.
    """
    if s.kind == "multi":
        return Summary("multi", s.cross, covered=True)
    block = s.block
    warp = s.block if s.warps else s.warp
    return Summary("single", s.cross, block, False, warp, False)


def _observed(s: Summary, action: Action, sync: Sync) -> Summary:
    """A plain access or atomic load after an atomic that covers the history
    (docs/semantics.md 1.6): all of it precedes this access. A thread not
    ordered after the atomic must not conflict with anything of the history
    or with this access: the blocks and warps that the barrier between the
    two (if any) does not cover see the class of the epoch and this access;
    after accesses of other blocks, class X (such a thread is ordered with
    none of them; only a load could follow them unordered, and only some of
    them, which the summary cannot tell apart)."""
    if sync == Sync.B:
        return _fresh(s.cross, action)
    local = _LOCAL_OF[action]
    block, warp = (s.block, s.warp) if s.kind == "single" else (frozenset(), frozenset())
    warp = local if sync == Sync.W else warp & local
    return Summary("single", s.cross & _CROSS_OF[action], block & local, False, warp, False)


def _barriers_and_program_order(s: Summary, action: Action, sync: Sync, rel: Rel) -> Summary:
    """The summary after one more access, ordering by barriers and program order only."""
    if s.kind == "race":
        return RACE_SUMMARY
    if s.kind == "init" or sync == Sync.G:
        # A grid barrier since the most recent access orders the whole history,
        # every block included: as if this were the first access.
        return _fresh(frozenset(Action), action)
    cross = s.cross & _CROSS_OF[action]
    if s.kind == "multi":
        # Another block's accesses are unordered with this one whoever makes it.
        if action not in s.cross:
            return RACE_SUMMARY
        return Summary("multi", cross)
    if rel == Rel.G:
        # Every earlier access is by another block: nothing orders them.
        if action not in s.cross:
            return RACE_SUMMARY
        return Summary("multi", cross)
    if sync == Sync.B:
        # A __syncthreads since the most recent access orders the whole history.
        return _fresh(s.cross, action)
    local = _LOCAL_OF[action]
    if rel == Rel.B or s.warps:
        # Another warp has an access in the block epoch that nothing orders.
        if action not in s.block:
            return RACE_SUMMARY
        return Summary("single", cross, s.block & local, True)
    block = s.block & local
    if sync == Sync.W:
        # Same warp, a __syncwarp since the most recent access: a new warp epoch.
        return Summary("single", cross, block, False, local, False)
    if rel == Rel.S and not s.threads:
        # The warp epoch is all by this thread: program order covers it.
        return Summary("single", cross, block, False, s.warp & local, False)
    # Another thread of the warp has an unordered access in the warp epoch.
    if action not in s.warp:
        return RACE_SUMMARY
    return Summary("single", cross, block, False, s.warp & local, True)


def _derive() -> tuple[list[Summary], np.ndarray]:
    """Explore every summary reachable from INIT; return states and the table."""
    order = [INIT_SUMMARY, RACE_SUMMARY]
    index = {s: i for i, s in enumerate(order)}
    queue = deque(order)
    edges: dict[tuple[int, int, int, int], Summary] = {}
    while queue:
        s = queue.popleft()
        for a in Action:
            for y in Sync:
                for r in Rel:
                    t = successor(s, a, y, r)
                    if t not in index:
                        index[t] = len(order)
                        order.append(t)
                        queue.append(t)
                    edges[(index[s], a, y, r)] = t
    table = np.zeros((len(order), len(Action), len(Sync), len(Rel)), dtype=np.uint8)
    for (s, a, y, r), t in edges.items():
        table[s, a, y, r] = index[t]
    return order, table


def _equivalence_classes(table: np.ndarray, race: int) -> list[int]:
    """Moore partition refinement: class id per state (equal ids = equivalent)."""
    cls = [1 if s == race else 0 for s in range(table.shape[0])]
    while True:
        sig = [(cls[s], tuple(cls[t] for t in table[s].ravel())) for s in range(len(cls))]
        ids = {k: i for i, k in enumerate(dict.fromkeys(sig))}
        new = [ids[k] for k in sig]
        if len(set(new)) == len(set(cls)):
            return new
        cls = new


SUMMARIES, _TABLE = _derive()
INIT = 0
RACE = 1
N_STATES = len(SUMMARIES)
STATE_BITS = 5
assert N_STATES <= 1 << STATE_BITS, "the shadow word reserves 5 bits for the state"
assert len(set(_equivalence_classes(_TABLE, RACE))) == N_STATES, "FSM is not minimal"

STATES: tuple[str, ...] = tuple("INIT" if s.kind == "init" else s.name for s in SUMMARIES)
MEANINGS: tuple[str, ...] = tuple(
    "No access yet." if s.kind == "init" else s.meaning() for s in SUMMARIES
)
STATE_INDEX: dict[str, int] = {name: i for i, name in enumerate(STATES)}


ORDERED_BEFORE_LAST: frozenset[int] = frozenset(
    i for i, s in enumerate(SUMMARIES) if _covered(s)
)
"""States whose whole history precedes whatever happens after the last
access. When a message (docs/semantics.md 1.6) orders that access before a
new one, the new access is ordered after the whole history (the runtime's
message check)."""

MESSAGE_STATE: int = STATE_INDEX[_fresh(frozenset(), Action.W).name]
"""The state an access installs when a message orders it after the whole
history of a state of ORDERED_BEFORE_LAST that the table finds racing with
it: a write by the accessor. The threads the message does not reach are
ordered with no earlier access, of any block, so every access not ordered
after this one must conflict with it: sound whatever the access was (a race
decision is never between two reads), exact when no such access follows."""


_TABLE.setflags(write=False)
TRANSITIONS: np.ndarray = _TABLE
"""uint8 array (states, 6 actions, 4 syncs, 4 relations) -> next state. Read-only."""

FLAT_TRANSITIONS: np.ndarray = TRANSITIONS.ravel()
"""The table in the order device code indexes it, see `flat_index`."""


def flat_index(state: int, action: int, sync: int, rel: int) -> int:
    """Index into `FLAT_TRANSITIONS`, the layout the device table uses."""
    return ((state * len(Action) + action) * len(Sync) + sync) * len(Rel) + rel


SOUND_ONLY: frozenset[int] = frozenset(
    flat_index(STATE_INDEX["MB_G"], Action.BA, y, r)
    for y in Sync
    for r in Rel
    if y != Sync.G and r != Rel.G
)
"""The table entries that may decide RACE where docs/semantics.md 1.6 has
none: a block-scope atomic of a block after device-scope atomics of two or
more blocks. It is ordered after the other blocks' atomics when an atomic
that observed them happens before it: the last one, when the clocks order
the block-scope atomic after it (then the entry never races), or an earlier
atomic of its own thread, which a summary that keeps the last accessor alone
cannot know (docs/fsm.md). Everywhere else the table is exact."""


def step(state: int, action: int, sync: int, rel: int) -> int:
    """Next state after an access with the given action, sync status and relation."""
    return int(TRANSITIONS[state, action, sync, rel])


def state_index(name: str) -> int:
    """Index of a state by name; ValueError listing the valid names if unknown."""
    try:
        return STATE_INDEX[name]
    except KeyError:
        raise ValueError(f"unknown FSM state {name!r}; states are {', '.join(STATES)}") from None


def message_read(state: int) -> int:
    """The state the last accessor's own read leaves a word in `state`: what
    a read installs, by the reader, when a message orders it after the whole
    history and the table counts it as one more unordered reader
    (`adds_reader`). Every earlier access happens before the read, as
    before the last accessor's own; a later access not ordered after the
    read may be unordered with all of the history, and a state of
    MESSAGE_READERS admits only what conflicts with none of it (its classes,
    with the read in them, are the classes of reads: docs/fsm.md, "Message
    passing in the runtime")."""
    return step(state, Action.R, Sync.U, Rel.S)


MESSAGE_READERS: frozenset[int] = frozenset(
    s for s in ORDERED_BEFORE_LAST if message_read(s) in ORDERED_BEFORE_LAST
)
"""The states of ORDERED_BEFORE_LAST whose `message_read` is again one: those
where a message-ordered read can leave the word ordered before its reader
(the others, MB_Lo and MB_Ro, need atomics of two blocks on the location,
and a read after them is not ordered after the other blocks' in the table)."""


def adds_reader(state: int, action: int, nxt: int) -> bool:
    """Whether the table's decision `nxt` for an access `action` to a word in
    `state` counts it as one more unordered reader of a history that a
    message may order before it: a read from a state of MESSAGE_READERS to a
    state outside ORDERED_BEFORE_LAST that is not RACE. The runtime asks its
    message check there, as on a race, and installs `message_read` when a
    message orders the read."""
    return (
        action == Action.R
        and state in MESSAGE_READERS
        and nxt != RACE
        and nxt not in ORDERED_BEFORE_LAST
    )
