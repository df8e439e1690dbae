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

So a non-race state of a single-block history records: the kind class of the
whole history as seen from another block (``R`` reads only, ``G`` device-scope
atomics only, ``X`` anything else), the kind class of the block epoch as seen
from another warp of the block (``R``, ``A`` atomics of any scope, ``X``) and
whether it spans several warps, and, when it does not, the class of the warp
epoch and whether it spans several threads. The last accessor's identity and
clocks, kept beside the state in the shadow word, tell the next access whether
a ``__syncthreads`` (sync B) or a ``__syncwarp`` (sync W) separates it from the
*most recent* access, which is all the epochs need: every earlier access of the
block precedes the most recent one. A grid barrier (sync G) orders every
earlier access of every block, so after one the history starts over.

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
    """A memory action: plain read/write, block-scope or device-scope atomic."""

    R = 0
    W = 1
    BA = 2
    GA = 3


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


# Kind classes. Cross-block class of a set of accesses: R (reads only), G (GA
# only), X (anything else: it conflicts with every access from another block).
# Local class, as seen from another warp or thread of the same block: R (reads
# only), A (atomics of either scope only), X (anything else).
_CROSS_OF = {Action.R: "R", Action.W: "X", Action.BA: "X", Action.GA: "G"}
_LOCAL_OF = {Action.R: "R", Action.W: "X", Action.BA: "A", Action.GA: "A"}
_CROSS_WORDS = {
    "R": "only reads",
    "G": "only device-scope atomics",
    "X": "mixed kinds or a write or a block-scope atomic",
}
_LOCAL_WORDS = {"R": "only reads", "A": "only atomics", "X": "mixed kinds or a write"}


def _join(a: str, b: str) -> str:
    """Class of the union of two sets of accesses with classes a and b."""
    return a if a == b else "X"


def _compatible(cls: str, action: Action, cross: bool) -> bool:
    """True when `action` by another thread conflicts with no access of class `cls`."""
    if cls == "R":
        return action == Action.R
    if cross:
        return cls == "G" and action == Action.GA
    return cls == "A" and action in (Action.BA, Action.GA)


@dataclass(frozen=True)
class Summary:
    """What a non-initial state knows about the history of one location.

    kind is "race", "multi" (accesses from two or more blocks) or "single"
    (all accesses by the last accessor's block). For "multi", `cross` is R or
    G. For "single": `cross` classifies the whole history; `block` the block
    epoch (accesses since the block's last ``__syncthreads``), `warps` whether
    that epoch spans several warps; when it does not, `warp` classifies the
    warp epoch (accesses since the last ``__syncwarp`` of the last accessor's
    warp) and `threads` says whether it spans several threads (otherwise all
    of it is by the last accessor).
    """

    kind: str
    cross: str = ""
    block: str = ""
    warps: bool = False
    warp: str = ""
    threads: bool = False

    @property
    def name(self) -> str:
        if self.kind == "race":
            return "RACE"
        if self.kind == "multi":
            return f"MB_{self.cross}"
        if self.block == "A":
            return f"{self.cross}_A"
        block = f"{self.block}{'m' if self.warps else 'w'}"
        if self.warps:
            return f"{self.cross}_{block}"
        if self.warp == "A":
            return f"{self.cross}_{block}_A"
        return f"{self.cross}_{block}_{self.warp}{'n' if self.threads else '1'}"

    def meaning(self) -> str:
        """The state's meaning as a predicate over the history of the location."""
        if self.kind == "race":
            return "Two conflicting accesses unordered by happens-before have occurred."
        if self.kind == "multi":
            last = "; the last one observed all of them" if self.cross == "G" else ""
            return (
                "No race. Accesses come from two or more blocks and are "
                f"{_CROSS_WORDS[self.cross]}{last}."
            )
        observed = (
            "; the last access is an atomic, and every earlier access happens "
            "before it or is an atomic write it observed"
        )
        where = "All accesses are by the last accessor's block"
        if self.cross == "X":
            where += " or precede the last access in causality order (an atomic observed them)"
        text = f"No race. {where}; all of them: {_CROSS_WORDS[self.cross]}; "
        if self.block == "A":
            return text + f"since that block's last __syncthreads: only atomics{observed}."
        text += f"since that block's last __syncthreads: {_LOCAL_WORDS[self.block]}, "
        if self.warp == "A":
            return (
                text + "all by the last accessor's warp; since that warp's last "
                f"__syncwarp: only atomics{observed}."
            )
        if self.warps:
            return text + "from two or more warps."
        who = "two or more threads" if self.threads else "the last accessor alone"
        return (
            text + "all by the last accessor's warp; since that warp's last "
            f"__syncwarp: {_LOCAL_WORDS[self.warp]}, by {who}."
        )


INIT_SUMMARY = Summary("init")
RACE_SUMMARY = Summary("race")


def _fresh(cross: str, action: Action) -> Summary:
    """History whose block epoch is just this access (first access, or after a barrier)."""
    local = _LOCAL_OF[action]
    return Summary("single", _join(cross, _CROSS_OF[action]), local, False, local, False)


def _last_is_atomic(s: Summary) -> bool:
    """Whether the last access of a history with summary `s` is an atomic."""
    if s.kind == "multi":
        return s.cross == "G"
    if s.kind != "single":
        return False
    return (s.block if s.warps else s.warp) == "A"


def _after_last(sync: Sync, rel: Rel) -> bool:
    """Whether the clocks order the new access after the last one."""
    return rel == Rel.S or (rel == Rel.W and sync >= Sync.W) or (rel != Rel.G and sync == Sync.B)


def successor(s: Summary, action: Action, sync: Sync, rel: Rel) -> Summary:
    """The summary after one more access: the rules the whole table is derived from."""
    following = _barriers_and_program_order(s, action, sync, rel)
    if following is RACE_SUMMARY and action in (Action.R, Action.W):
        if _last_is_atomic(s) and _after_last(sync, rel):
            return _observed(s, action, sync)
    return _canonical(following)


def _canonical(s: Summary) -> Summary:
    """Forget who made an epoch of atomics: its last atomic observed all of it.

    Whatever warps or threads made the atomics since the last barrier, the
    next atomic of the block races with none of them, and a plain access
    races exactly when it is not ordered after the last one (observation,
    docs/semantics.md 1.6). So those epochs need no span.
    """
    if s.kind != "single":
        return s
    if s.block == "A":
        return Summary("single", s.cross, "A", False, "A", False)
    if not s.warps and s.warp == "A":
        return Summary("single", s.cross, s.block, False, "A", False)
    return s


def _observed(s: Summary, action: Action, sync: Sync) -> Summary:
    """A plain access after an atomic that was the last access (docs/semantics.md 1.6).

    In a race-free history every earlier access precedes that atomic in
    causality order or is an atomic write it observed, so all of it precedes
    this access. A thread not ordered after the atomic conflicts with it
    (plain) or with this access (atomic): the blocks and warps that the
    barrier between the two (if any) does not cover see class X.
    """
    if sync == Sync.B:
        return _fresh(s.cross, action)
    local = _LOCAL_OF[action] if sync == Sync.W else "X"
    return Summary("single", "X", "X", False, local, False)


def _barriers_and_program_order(s: Summary, action: Action, sync: Sync, rel: Rel) -> Summary:
    """The summary after one more access, ordering by barriers and program order only."""
    if s.kind == "race":
        return RACE_SUMMARY
    if s.kind == "init" or sync == Sync.G:
        # A grid barrier since the most recent access orders the whole history,
        # every block included: as if this were the first access.
        return _fresh(_CROSS_OF[action], action)
    if s.kind == "multi":
        # Another block's accesses are unordered with this one whoever makes it.
        return s if _compatible(s.cross, action, cross=True) else RACE_SUMMARY
    cross = _join(s.cross, _CROSS_OF[action])
    if rel == Rel.G:
        # Every earlier access is by another block: nothing orders them.
        if _compatible(s.cross, action, cross=True):
            return Summary("multi", s.cross)
        return RACE_SUMMARY
    if sync == Sync.B:
        # A __syncthreads since the most recent access orders the whole history.
        return _fresh(s.cross, action)
    if rel == Rel.B or s.warps:
        # Another warp has an access in the block epoch that nothing orders.
        if not _compatible(s.block, action, cross=False):
            return RACE_SUMMARY
        return Summary("single", cross, s.block, True)
    block = _join(s.block, _LOCAL_OF[action])
    if sync == Sync.W:
        # Same warp, a __syncwarp since the most recent access: a new warp epoch.
        local = _LOCAL_OF[action]
        return Summary("single", cross, block, False, local, False)
    if rel == Rel.S and not s.threads:
        # The warp epoch is all by this thread: program order covers it.
        return Summary("single", cross, block, False, _join(s.warp, _LOCAL_OF[action]), False)
    # Another thread of the warp has an unordered access in the warp epoch.
    if not _compatible(s.warp, action, cross=False):
        return RACE_SUMMARY
    return Summary("single", cross, block, False, s.warp, True)


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


def _ordered_before_last(s: Summary) -> bool:
    """Whether every access of a history with summary `s` precedes, in
    causality order, whatever happens after its last one: one block, and
    since the block's last ``__syncthreads`` one warp, and since that warp's
    last ``__syncwarp`` the last accessor alone; or the last access is an
    atomic, which observed every earlier atomic (docs/semantics.md 1.6)."""
    single = s.kind == "single" and not s.warps and not s.threads
    return single or _last_is_atomic(s)


ORDERED_BEFORE_LAST: frozenset[int] = frozenset(
    i for i, s in enumerate(SUMMARIES) if _ordered_before_last(s)
)
"""States whose whole history precedes whatever happens after the last
access. When a message (docs/semantics.md 1.6) orders that access before a
new one, the new access is ordered after the whole history (the runtime's
message check)."""

MESSAGE_STATE: int = STATE_INDEX[_fresh("X", Action.W).name]
"""The state an access installs when a message orders it after the whole
history of a state of ORDERED_BEFORE_LAST that the table finds racing with
it: a write by the accessor. The threads the message does not reach are
ordered with no earlier access, of any block, so every access not ordered
after this one must conflict with it: sound whatever the access was (a race
decision is never between two reads), exact when no such access follows."""

READS_STATE: int = STATE_INDEX[_fresh("R", Action.R).name]
"""The one state of ORDERED_BEFORE_LAST whose history is all reads. A read
that a message orders after such a history installs it again, by the reader
alone (exact: the table would count it as a second, unordered reader)."""

_TABLE.setflags(write=False)
TRANSITIONS: np.ndarray = _TABLE
"""uint8 array (states, 4 actions, 4 syncs, 4 relations) -> next state. Read-only."""

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
