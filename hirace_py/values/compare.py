"""Where the FSM and values engines disagree, and why.

Races are compared by (unordered pair of source lines, kind, memory space), as
the litmus manifest compares them. A race only the FSM engine found is put in
the first class that applies:

- "atomics": an access is atomic (the race's kind is atomic-plain, or, for a
  pair that is not exact, one of its sites is an atomic); the values engine
  does not check locations accessed atomically (atomics act on memory
  directly, unprivatized).
- "inexact": the FSM race is not exact (`Race.exact`
  false: whole programs, which are not replayed, record the access that found
  an element racing and the last access before it, which need not conflict),
  and the values engine reported no race through one of its lines on the
  variable (else: "pairing"): the pair says nothing about which accesses raced.
- "same-warp": both accesses are by lanes of one warp (the FSM pair is exact),
  which share the values engine's private copy: per-warp granularity.
- "pairing": the values engine reports the same variable racing through a pair
  with one of these lines; it keeps only the first reader and writer of each
  element per warp and per block, so it can name another pair of sites.
- "messages": none of the above, and the values engine left conflicts
  unreported because the warps (blocks) involved may have passed a message (a
  `values-messages` notice in the runs compared): it does not model message
  passing, so a race between a releasing and an atomic-using warp (block) is
  not reported whether or not a message ordered it.
- "value": none of the above: value coincidence (no write changed a value the
  other access saw). These two classes are the remainder, not a proof;
  docs/engines.md explains every disagreement on the suites one by one.

A race only the values engine found is "fsm-pairing" when the FSM engine
listed one pair per element (pairs "last": whole programs, which are not
replayed) and reported the same variable racing through a pair with one of
these lines; else "cascade" when the FSM engine found any race in what is
compared (the launch, or the whole program): the two engines then execute
differently (the values engine's reads of a racing location see the
interval's start value, the FSM run's the plain schedule's), so addresses and
control flow computed from racing values differ, and the values engine can
meet races of an execution the FSM run did not make (a list appended through
a racing counter: every warp writes the same slot). Else "unexplained": on a
program the FSM engine finds race-free both executions are equivalent, and
the values engine only reports accesses that conflict by the FSM engine's
definition, so it means a bug in one of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from hirace_py.report import LaunchReport, Notice, Race

REASONS = {
    "atomics": "the values engine does not check locations accessed atomically",
    "same-warp": "both accesses are by lanes of one warp, which share the values engine's "
                 "private copy (per-warp granularity)",
    "pairing": "the values engine found the variable racing through another pair of sites "
               "on one of these lines (it keeps the first reader and writer per element)",
    "messages": "the values engine does not report conflicts between warps or blocks that may "
                "have passed a message (one released: a fence, then an atomic; the other "
                "used an atomic), and left some unreported (values-messages)",
    "value": "value coincidence: no write changed a value the other access saw",
    "inexact": "the FSM engine's pair is not the racing pair (a whole program lists the last "
               "access to an element already racing, not its partner), so the class cannot be "
               "told from the pair; docs/engines.md explains each case",
    "fsm-pairing": "the FSM engine of a whole program keeps one racing pair per element, and "
                   "found the variable racing through another pair of sites on one of these "
                   "lines",
    "cascade": "the FSM engine found the program racy, and the values engine's execution, whose "
               "reads of racing locations see other values, made accesses the FSM run did not "
               "make (e.g. slots taken through a racing counter)",
    "unexplained": "found by the values engine only: a bug in one of the engines",
}  # fmt: skip

Key = tuple[tuple[int, int], str, str]

MESSAGES_NOTICE = "values-messages"
"""The values engine's notice of conflicts left unreported (hirace_py.values.interpret)."""


def key(race: Race) -> Key:
    return race.lines(), race.kind, race.space


@dataclass(frozen=True)
class Disagreement:
    """A race key found by one engine only, with the class that explains it."""

    found_by: str
    key: Key
    variable: str
    reason: str

    def notice(self) -> Notice:
        (a, b), kind, space = self.key
        text = (f"engines disagree: {kind} race on {space} '{self.variable}' at lines {a} and "
                f"{b} found by the {self.found_by} engine only ({self.reason}: "
                f"{REASONS[self.reason]})")  # fmt: skip
        return Notice(f"engines-{self.reason}", text)


def _warp(race_thread: tuple[int, int, int], block: tuple[int, int, int]) -> int:
    x, y, z = race_thread
    return (x + block[0] * (y + block[1] * z)) // 32


def classify(race: Race, values: list[Race], block: tuple[int, int, int],
             messages: bool = False) -> str:  # fmt: skip
    """Why the values engine missed `race`, an FSM race (see the module's docstring);
    `messages`: the values engine left conflicts unreported as possibly ordered
    by a message (a `values-messages` notice)."""
    atomic = any(a.site is not None and a.site.action in ("BA", "GA", "BL", "GL")
                 for a in (race.first, race.second))  # fmt: skip
    if race.kind == "atomic-plain" or atomic:
        return "atomics"
    lines = set(race.lines())
    if not race.exact:
        if any(v.variable == race.variable and lines & set(v.lines()) for v in values):
            return "pairing"
        return "inexact"
    if (race.exact and race.first.block == race.second.block
            and _warp(race.first.thread, block) == _warp(race.second.thread, block)):  # fmt: skip
        return "same-warp"
    if any(v.variable == race.variable and lines & set(v.lines()) for v in values):
        return "pairing"
    return "messages" if messages else "value"


def classify_values(race: Race, fsm: list[Race], fsm_pairs: str) -> str:
    """Why the FSM engine did not list `race`, a values race (see the module's docstring)."""
    lines = set(race.lines())
    if fsm_pairs == "last" and any(f.variable == race.variable and lines & set(f.lines())
                                   for f in fsm):  # fmt: skip
        return "fsm-pairing"
    return "cascade" if fsm else "unexplained"


def disagreements(fsm: LaunchReport, values: LaunchReport) -> list[Disagreement]:
    """Every race key one engine found in a launch and the other did not, classified."""
    return compare([(r, fsm.block) for r in fsm.races], values.races,
                   messages=passed_messages(values.notices))


def passed_messages(notices: list[Notice]) -> bool:
    """Whether the values engine left conflicts unreported as possibly ordered by
    a message (hirace_py.values.interpret's `values-messages` notice)."""
    return any(n.code == MESSAGES_NOTICE for n in notices)


def compare(fsm: list[tuple[Race, tuple[int, int, int]]], values: list[Race],
            fsm_pairs: str = "exact", messages: bool = False) -> list[Disagreement]:
    """Every race key one engine found and the other did not, classified: `fsm`
    holds the FSM engine's races with the block size of their launches (any
    number of launches: a whole program), `values` the values engine's;
    `fsm_pairs` is how the FSM engine listed pairs (hirace_py.report.Report.pairs);
    `messages`: the values runs had a `values-messages` notice."""
    fsm_keys: dict[Key, tuple[Race, tuple[int, int, int]]] = {}
    for race, block in fsm:
        fsm_keys.setdefault(key(race), (race, block))
    values_keys: dict[Key, Race] = {}
    for race in values:
        values_keys.setdefault(key(race), race)
    out = [
        Disagreement("fsm", k, r.variable, classify(r, values, block, messages))
        for k, (r, block) in sorted(fsm_keys.items()) if k not in values_keys
    ]  # fmt: skip
    fsm_races = [r for r, _ in fsm]
    out += [Disagreement("values", k, r.variable, classify_values(r, fsm_races, fsm_pairs))
            for k, r in sorted(values_keys.items()) if k not in fsm_keys]  # fmt: skip
    return out


def merge_launch(fsm: LaunchReport, values: LaunchReport, notices: list[Notice]) -> LaunchReport:
    """One launch as both engines saw it: the races either found (each tagged with
    its engine), both engines' notices and `notices` (the disagreements), and
    the values engine's counters prefixed with "values_"."""
    return LaunchReport(
        fsm.kernel, fsm.grid, fsm.block, fsm.shared_bytes, fsm.backend,
        None if fsm.seconds is None or values.seconds is None else fsm.seconds + values.seconds,
        races=fsm.races + values.races,
        notices=fsm.notices + values.notices + notices,
        counters={**fsm.counters, **{f"values_{k}": n for k, n in values.counters.items()}},
        shadow_bytes=fsm.shadow_bytes, stdout=fsm.stdout, error=fsm.error or values.error,
        bounds=fsm.bounds,
    )  # fmt: skip
