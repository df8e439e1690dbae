"""The `--engine both` table of a suite run: where the FSM and values engines agree.

    hirace check SUITE --inputs G.egr ... --engine both --db results.sqlite
    python bench/engines_suite.py results.sqlite [--codes]

Reads the rows a `--engine both` suite run stored (hirace_py.indigo.results:
each race tagged with its engine, each disagreement a notice `engines-CLASS`,
hirace_py.values.compare) and prints, per race tag of the codes' names
(hirace_py.indigo.suite.RACE_TAGS; "none" for codes with none), how many codes
and runs each engine found a race in, the runs whose two programs did not
make the same launches ("diverged": compared over the whole program), the
race keys (pair of lines, kind, space) each found over all runs, and the keys
one engine found alone, by class. `--codes` adds one line per code and run
with its disagreements, for docs/engines.md.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections import Counter, defaultdict
from pathlib import Path

from hirace_py.indigo.suite import RACE_TAGS, labels_from_name

Key = tuple[tuple[int, int], str, str]


def keys(races: list[dict], engine: str) -> set[Key]:
    return {(tuple(r["lines"]), r["kind"], r["space"]) for r in races  # type: ignore[misc]
            if r.get("engine", "fsm") == engine}  # fmt: skip


def group(code: str) -> str:
    tags = [t for t in labels_from_name(Path(code).stem).bugs if t in RACE_TAGS]
    return "+".join(tags) or "none"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--codes", action="store_true", help="one line per code and run")
    args = parser.parse_args()
    db = sqlite3.connect(args.db)
    query = "SELECT code, input, races, notices, error FROM runs ORDER BY code, input"
    stats: dict[str, Counter] = defaultdict(Counter)
    classes: dict[str, Counter] = defaultdict(Counter)
    lines = []
    for code, data, races_json, notices_json, error in db.execute(query):
        g = group(code)
        s = stats[g]
        s["runs"] += 1
        if error:
            s["errors"] += 1
            continue
        races, notices = json.loads(races_json), json.loads(notices_json)
        fsm, values = keys(races, "fsm"), keys(races, "values")
        s["fsm runs"] += bool(fsm)
        s["values runs"] += bool(values)
        s["fsm keys"] += len(fsm)
        s["values keys"] += len(values)
        found = [n for n in notices if n["code"].startswith("engines-")]
        s["diverged"] += any(n["code"] == "engines-diverged" for n in found)
        for n in found:
            if n["code"] == "engines-diverged":
                continue
            reason = n["code"].removeprefix("engines-")
            side = "values only" if "by the values engine only" in n["message"] else "fsm only"
            classes[g][(side, reason)] += 1
        if args.codes and (found or fsm or values):
            lines.append(f"{code} [{Path(data).name}]: fsm {len(fsm)}, values {len(values)}")
            lines += [f"    {n['message']}" for n in found]
    head = ("race tag", "runs", "errors", "diverged", "FSM found", "values found", "FSM keys",
            "values keys", "FSM only (class)", "values only (class)")  # fmt: skip
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join("---" for _ in head) + " |")
    total: Counter = Counter()
    total_classes: Counter = Counter()
    for g in sorted(stats):
        s, c = stats[g], classes[g]
        total.update(s)
        total_classes.update(c)
        print(row(g, s, c))
    print(row("**all**", total, total_classes))
    if lines:
        print()
        print("\n".join(lines))
    return 0


def row(name: str, s: Counter, c: Counter) -> str:
    def by(side: str) -> str:
        parts = [f"{reason} {n}" for (where, reason), n in sorted(c.items()) if where == side]
        return ", ".join(parts) or "-"

    cells = (name, s["runs"], s["errors"], s["diverged"], s["fsm runs"], s["values runs"],
             s["fsm keys"], s["values keys"], by("fsm only"), by("values only"))  # fmt: skip
    return "| " + " | ".join(map(str, cells)) + " |"


if __name__ == "__main__":
    sys.exit(main())
