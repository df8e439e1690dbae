"""The false alarms, errors and misses of a suite results database, grouped.

    python bench/indigo_alarms.py DB [--examples 1]

DB is the `--db` file of `hirace check SUITE --inputs ...`. Every run whose
code carries no race tag but reported races (a false alarm by label) is
grouped by the code's directory and each race's kind, variable and sorted
line pair (the file of each side too when it is not the code itself, e.g. a
library header); a group lists how many codes and runs show it and, with
--examples N, the first N codes. A run can be in several groups (one per
distinct race). Then the codes whose only races are of the `atomic-plain`
kind are counted (the class an atomic-load action removes), and every error
row, unexpected hang and miss is listed. The groups are what docs/indigo.md
classifies by hand (races the labels do not plant, confirmed how; hirace's
own over-approximations; bugs of ours).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections import defaultdict
from pathlib import Path, PurePosixPath


def side(race: dict, which: str, code: str) -> str:
    site = race[which].get("site") or {}
    name = PurePosixPath(site.get("file", "?")).name
    line = site.get("line", 0)
    return f"{line}" if name == PurePosixPath(code).name else f"{name}:{line}"


def key(race: dict, code: str) -> tuple[str, str, str]:
    sides = sorted([side(race, "first", code), side(race, "second", code)])
    return race["kind"], race.get("variable") or "?", "/".join(sides)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db", type=Path)
    ap.add_argument("--examples", type=int, default=1)
    args = ap.parse_args()
    if not args.db.is_file():
        print(f"{args.db}: no such file", file=sys.stderr)
        return 2
    with sqlite3.connect(args.db) as con:
        rows = con.execute(
            "SELECT code, input, expected_racy, expected_hang, hung, races, error FROM runs "
            "ORDER BY code, input"
        ).fetchall()  # fmt: skip
    groups: dict[tuple[str, str, str, str], dict[str, set]] = defaultdict(
        lambda: {"codes": set(), "runs": set()})  # fmt: skip
    atomic_only: set[str] = set()
    alarm_codes: set[str] = set()
    problems = []
    for code, data, racy, may_hang, hung, races_json, error in rows:
        races = json.loads(races_json)
        where = PurePosixPath(code).parent.as_posix()
        if error:
            problems.append(("error", code, data, error.splitlines()[0][:200]))
        elif hung and not may_hang:
            problems.append(("hung", code, data, "did not finish, no LivelockBug label"))
        elif racy and not races:
            problems.append(("missed", code, data, ""))
        elif not racy and races:
            alarm_codes.add(code)
            for race in races:
                g = groups[(where, *key(race, code))]
                g["codes"].add(code)
                g["runs"].add((code, data))
            if all(r["kind"] == "atomic-plain" for r in races):
                atomic_only.add(code)
    print(f"{args.db}: {len(rows)} runs, {len(alarm_codes)} codes with a false alarm by label, "
          f"{len(atomic_only)} of them with atomic-plain races only")  # fmt: skip
    print(f"{'directory':<12}{'kind':<14}{'variable':<20}{'lines':<26}{'codes':>6}{'runs':>6}")
    for (where, kind, variable, lines), g in sorted(groups.items()):
        print(f"{where:<12}{kind:<14}{variable:<20}{lines:<26}{len(g['codes']):>6}"
              f"{len(g['runs']):>6}")  # fmt: skip
        for code in sorted(g["codes"])[: args.examples]:
            print(f"    e.g. {PurePosixPath(code).name}")
    for what, code, data, why in problems:
        print(f"{what}: {code} on {PurePosixPath(data).name}{': ' + why if why else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
