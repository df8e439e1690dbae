"""The suite's result table, per input graph, and the list of what went wrong.

Counting (each row is one code on one input):
- `expected_racy`: rows whose code carries a race bug tag.
- `found` / `missed`: expected racy rows that reported a race / reported none;
  `false_alarms`: rows not expected racy that reported one.
- `errors`: rows whose code failed to instrument, compile or run. They are
  counted in none of found, missed or false alarms (never as race-free).
- `hung`: rows whose program did not finish within the time limit. Ended at
  its deadline, a run is judged on its report (found, missed, false alarm);
  killed, it has no verdict. A hang is an error unless the code's label
  says it may never finish (`LivelockBug`): then it is what the label
  predicts, counted here and not in `errors` (`hung_unexpected`: hangs of
  codes without that label, which are errors too).
- `bounds`: rows where an out-of-bounds access was detected (bounds-bug codes
  are not racy: a race reported there is a false alarm like any other);
  `bounds_unexpected` / `bounds_undetected`: detections in codes without a
  bounds tag / bounds-tagged codes without a detection.
- `differs`: rows (not errors) whose program said its results differ from the
  serial code's; `differs_race_free` the part of them whose code has no race
  bug; `serial_unchecked`: rows (not errors) whose output did not say.
- `notices`: rows (not errors) with accesses the checker did not check.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from hirace_py.indigo.results import RunResult


@dataclass
class InputSummary:
    """The counts of one input, and the rows behind the interesting ones."""

    input: str
    rows: list[RunResult] = field(default_factory=list)

    def count(self, pick: Callable[[RunResult], object]) -> int:
        return sum(1 for r in self.rows if pick(r))

    def counts(self) -> dict[str, int]:
        errors = self.errors()
        ok = [r for r in self.rows if judged(r)]
        return {
            "tests": len(self.rows),
            "expected_racy": self.count(lambda r: r.expected_racy),
            "found": sum(1 for r in ok if r.expected_racy and r.racy),
            "missed": sum(1 for r in ok if r.expected_racy and not r.racy),
            "false_alarms": sum(1 for r in ok if not r.expected_racy and r.racy),
            "errors": len(errors),
            "hung": self.count(lambda r: r.hung),
            "hung_unexpected": self.count(lambda r: r.hung and not r.expected_hang),
            "expected_bounds": self.count(lambda r: r.expected_bounds),
            "bounds": self.count(lambda r: r.bounds),
            "bounds_unexpected": self.count(lambda r: r.bounds and not r.expected_bounds),
            "bounds_undetected": sum(1 for r in ok if r.expected_bounds and not r.bounds),
            "differs": sum(1 for r in ok if r.differs),
            "differs_race_free": sum(1 for r in ok if r.differs and not r.expected_racy),
            "serial_unchecked": sum(1 for r in ok if r.differs is None),
            "notices": sum(1 for r in ok if r.notices),
        }

    def misses(self) -> list[RunResult]:
        return [r for r in self.rows if judged(r) and r.expected_racy and not r.racy]

    def false_alarms(self) -> list[RunResult]:
        return [r for r in self.rows if judged(r) and not r.expected_racy and r.racy]

    def errors(self) -> list[RunResult]:
        """Rows that failed or hung, except a hang the code's label predicts."""
        return [r for r in self.rows if (r.error or r.hung) and not (r.hung and r.expected_hang)]


def judged(r: RunResult) -> bool:
    """The row has a race verdict that counts: the program ran to its end, or
    to its deadline when its label says it may never finish."""
    return not r.error and (not r.hung or r.expected_hang)


def error_text(r: RunResult) -> str:
    """Why a row that is not judged failed."""
    return r.error or "the program did not finish (ended at its deadline or launch limit)"


def summarise(inputs: list[str], rows: list[RunResult]) -> list[InputSummary]:
    """One summary per input, in the order given; rows sorted by code."""
    by_input = {name: InputSummary(name) for name in inputs}
    for r in sorted(rows, key=lambda r: r.code):
        by_input[r.input].rows.append(r)
    return list(by_input.values())


COLUMNS = (
    ("input", "input"),
    ("tests", "tests"),
    ("expected racy", "expected_racy"),
    ("found", "found"),
    ("missed", "missed"),
    ("false alarms", "false_alarms"),
    ("errors", "errors"),
    ("hung", "hung"),
    ("bounds", "bounds"),
    ("differs", "differs"),
    ("not compared", "serial_unchecked"),
)


def table(summaries: list[InputSummary]) -> str:
    """The per-input table (plain text, aligned columns, a total row)."""
    body = []
    totals: dict[str, int] = {}
    for s in summaries:
        counts = s.counts()
        for key, value in counts.items():
            totals[key] = totals.get(key, 0) + value
        body.append([s.input, *(str(counts[key]) for _, key in COLUMNS[1:])])
    if len(summaries) > 1:
        body.append(["total", *(str(totals.get(key, 0)) for _, key in COLUMNS[1:])])
    head = [title for title, _ in COLUMNS]
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        return "  ".join([first, *(c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))])

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(head), rule, *(line(row) for row in body)]) + "\n"


def _site(access: dict) -> str:
    site = access.get("site")
    where = f"{site['file']}:{site['line']}:{site['column']}" if site else "an unrecorded site"
    return f"{where} (thread {tuple(access['thread'])} block {tuple(access['block'])})"


def race_text(race: dict, indent: str = "    ") -> list[str]:
    """A race from a row, in the words of the race report."""
    out = [f"{indent}{race['kind']} on {race['space']} memory '{race['variable']}' element "
           f"{race['element']} ({race['count']} element(s)), lines {race['lines'][0]} and "
           f"{race['lines'][1]}{'' if race['exact'] else ' (earlier access inexact)'}"]  # fmt: skip
    for label, side in (("earlier", race["first"]), ("racing ", race["second"])):
        out.append(f"{indent}  {label} {_site(side)}")
        if side.get("source"):
            out.append(f"{indent}      {side['source'].strip()}")
    return out


def distinct_races(races: list[dict]) -> list[tuple[dict, int]]:
    """The races of a row with one entry per kind, variable, kernel and line
    pair (a program reports a race again in every launch that has it), each
    with the number of reports it stands for."""
    out: dict[tuple, list] = {}
    for race in races:
        key = (race["kind"], race["space"], race["variable"], race["kernel"], *race["lines"])
        out.setdefault(key, [race, 0])[1] += 1
    return [(race, n) for race, n in out.values()]


def _bounds_text(b: dict) -> str:
    """One out-of-bounds finding: from the race report, or a launch the CPU
    backend stopped at one (then its message says it all)."""
    if b.get("stopped_launch"):
        return f"{b['message']} (the launch stopped there)"
    what = "write" if b.get("write") else "read"
    where = f"{b.get('file', '?')}:{b.get('line', '?')}"
    thread = tuple(b.get("thread", ())), tuple(b.get("block", ()))
    return (f"{what} at {where} by thread {thread[0]} in block {thread[1]}: byte offset "
            f"{b.get('offset', '?')} of '{b.get('allocation', '?')}' ({b.get('size', '?')} "
            f"bytes), {b.get('count', 1)} time(s)")  # fmt: skip


def details(summaries: list[InputSummary]) -> str:
    """Every miss, false alarm (with its races), error, bounds detection,
    race-free code that differs from the serial code, and unchecked comparison."""
    sections: dict[str, list[str]] = {
        "Missed (race bug tag, no race reported)": [],
        "False alarms (no race bug tag, races reported)": [],
        "Errors (not counted as race-free)": [],
        "Runs that did not finish": [],
        "Out-of-bounds accesses (not races)": [],
        "Codes with a bounds tag without a detected out-of-bounds access": [],
        "Codes without a race bug whose results differ from the serial code's": [],
        "Results not compared with the serial code": [],
        "Runs with accesses the checker did not check": [],
    }
    titles = list(sections)
    for s in summaries:
        for r in s.rows:
            where = f"{r.code} on {s.input}"
            if r.hung:
                label = "as labelled (LivelockBug)" if r.expected_hang else "not labelled to hang"
                how = "killed, no verdict" if r.error else "ended at its deadline or launch limit"
                sections[titles[3]].append(f"  {where}: {label}; {how}")
            if not judged(r):
                if not (r.hung and r.expected_hang):
                    sections[titles[2]].append(f"  {where}: {_indent(error_text(r))}")
                continue
            if r.expected_racy and not r.racy:
                sections[titles[0]].append(f"  {where}")
            if not r.expected_racy and r.racy:
                distinct = distinct_races(r.races)
                sections[titles[1]].append(f"  {where}: {len(r.races)} race(s), "
                                           f"{len(distinct)} distinct")  # fmt: skip
                for race, launches in distinct:
                    sections[titles[1]] += race_text(race)
                    if launches > 1:
                        sections[titles[1]].append(f"      (and in {launches - 1} more launch(es))")
            for b in r.bounds:
                sections[titles[4]].append(f"  {where}: {_bounds_text(b)}")
            if r.expected_bounds and not r.bounds:
                sections[titles[5]].append(f"  {where}")
            if r.differs and not r.expected_racy:
                why = " (after reading past the end of an array)" if r.bounds else ""
                sections[titles[6]].append(f"  {where}{why}")
            if r.differs is None:
                sections[titles[7]].append(f"  {where}: {r.serial_error}")
            if r.notices:
                text = "; ".join(fold_notices(r.notices))
                sections[titles[8]].append(f"  {where}: {text}")
    out = []
    for title, lines in sections.items():
        if lines:
            out += ["", f"{title}:", *lines]
    return "\n".join(out) + "\n" if out else ""


def fold_notices(notices: list[dict]) -> list[str]:
    """A row's notices (every launch's, and the program's), one text per code in
    the order first seen: a program repeats its launches' notices once per
    launch. Identical messages fold into the message and how many times it
    came; differing ones of one code (counts that vary by launch) into the
    first, how many more there were, and the total of their counts."""
    by_code: dict[str, list[dict]] = {}
    for n in notices:
        by_code.setdefault(n["code"], []).append(n)
    out = []
    for code, group in by_code.items():
        first = group[0]["message"]
        if len(group) == 1:
            out.append(first)
        elif all(n["message"] == first for n in group):
            out.append(f"{first} (x{len(group)})")
        else:
            total = sum(n.get("count", 0) for n in group)
            out.append(f"{first} (and {len(group) - 1} more {code} notice(s); "
                       f"{total} counted in all)")  # fmt: skip
    return out


ERROR_LINES = 6
"""Lines of an error shown in the text summary (the database and JSON keep all)."""


def _indent(text: str) -> str:
    lines = text.strip().splitlines()
    if len(lines) > ERROR_LINES:
        rest = len(lines) - ERROR_LINES
        lines = [*lines[:ERROR_LINES], f"... ({rest} more lines: see --format json or --db)"]
    return "\n      ".join(lines)


def to_csv(summaries: list[InputSummary]) -> str:
    """The table as CSV: a header, one line per input, a total line."""
    out = io.StringIO()
    keys = [key for _, key in COLUMNS[1:]]
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["input", *keys])
    totals = dict.fromkeys(keys, 0)
    for s in summaries:
        counts = s.counts()
        w.writerow([s.input, *(counts[k] for k in keys)])
        for k in keys:
            totals[k] += counts[k]
    w.writerow(["total", *(totals[k] for k in keys)])
    return out.getvalue()


def to_json(summaries: list[InputSummary], setup: dict) -> str:
    """A JSON list, one object per input: the counts, the setup, and the rows
    behind misses, false alarms, errors and bounds detections."""
    out = []
    for s in summaries:
        item: dict = {"input": s.input, **s.counts(), **setup}
        item["missed_codes"] = [{"code": r.code, "notices": r.notices} for r in s.misses()]
        item["false_alarm_codes"] = [{"code": r.code, "races": r.races} for r in s.false_alarms()]
        item["error_codes"] = [{"code": r.code, "error": error_text(r)} for r in s.errors()]
        item["exit_status"] = {r.code: r.exit_status for r in s.rows if r.exit_status}
        item["bounds_codes"] = [{"code": r.code, "bounds": r.bounds} for r in s.rows if r.bounds]
        item["differs_codes"] = [r.code for r in s.rows if judged(r) and r.differs]
        out.append(item)
    return json.dumps(out, indent=2) + "\n"
