"""Where the FSM and values engines disagree, and why.

Races are compared by (unordered pair of source lines, kind, memory space), as
the litmus manifest compares them. A race only the FSM engine found is put in
the first class that applies:

- "atomics": an access is atomic; the values engine does not check locations
  accessed atomically (atomics act on memory directly, unprivatized).
- "same-warp": both accesses are by lanes of one warp (the FSM pair is exact),
  which share the values engine's private copy: per-warp granularity.
- "pairing": the values engine reports the same variable racing through a pair
  with one of these lines; it keeps only the first reader and writer of each
  element per warp and per block, so it can name another pair of sites.
- "value": none of the above: value coincidence (no write changed a value the
  other access saw). This class is the remainder, not a proof; docs/engines.md
  explains every disagreement on the suites one by one.

A race only the values engine found is "unexplained": the values engine only
reports accesses that conflict by the FSM engine's definition, so it means a
bug in one of them.
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
    "value": "value coincidence: no write changed a value the other access saw",
    "unexplained": "found by the values engine only: a bug in one of the engines",
}  # fmt: skip

Key = tuple[tuple[int, int], str, str]


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


def classify(race: Race, values: list[Race], block: tuple[int, int, int]) -> str:
    """Why the values engine missed `race`, an FSM race (see the module's docstring)."""
    if race.kind == "atomic-plain":
        return "atomics"
    if (race.exact and race.first.block == race.second.block
            and _warp(race.first.thread, block) == _warp(race.second.thread, block)):  # fmt: skip
        return "same-warp"
    lines = set(race.lines())
    if any(v.variable == race.variable and lines & set(v.lines()) for v in values):
        return "pairing"
    return "value"


def disagreements(fsm: LaunchReport, values: LaunchReport) -> list[Disagreement]:
    """Every race key one engine found and the other did not, classified."""
    fsm_keys = {key(r): r for r in fsm.races}
    values_keys = {key(r): r for r in values.races}
    out = [
        Disagreement("fsm", k, r.variable, classify(r, values.races, fsm.block))
        for k, r in sorted(fsm_keys.items()) if k not in values_keys
    ]  # fmt: skip
    out += [Disagreement("values", k, r.variable, "unexplained")
            for k, r in sorted(values_keys.items()) if k not in fsm_keys]  # fmt: skip
    return out

