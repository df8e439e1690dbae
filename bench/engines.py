"""The FSM and values engines side by side on an Indigo-style suite (`--engine both`).

For every code of the suite and every input graph, the code runs once under each
engine (hirace_py.values.engines.BothChecker, as the Indigo driver launches it)
and the table gives, per code, the race keys (line pair, kind, space) each
engine found, and every key one engine found alone with its class
(hirace_py.values.compare). The totals count keys; the last lines list the
disagreements one by one, for docs/engines.md.

Run: python bench/engines.py [SUITE_DIR] [--inputs G.egr ...] [--blocks 64] [--threads 256]
"""

from __future__ import annotations

import argparse
import contextlib
import io
from collections import Counter
from pathlib import Path

from hirace_py.config import Config
from hirace_py.indigo.driver import CodeRunner, Settings, load_input
from hirace_py.indigo.suite import discover

ROOT = Path(__file__).resolve().parent.parent


def keys(races: list[dict], engine: str) -> set[tuple]:
    return {(tuple(r["lines"]), r["kind"], r["space"]) for r in races if r["engine"] == engine}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path, nargs="?", default=ROOT / "indigo" / "minisuite")
    parser.add_argument("--inputs", type=Path, nargs="+",
                        default=[ROOT / "indigo" / "graphs" / "dag_60.egr"])  # fmt: skip
    parser.add_argument("--blocks", type=int, default=64)
    parser.add_argument("--threads", type=int, default=256)
    opts = parser.parse_args()
    codes, _ = discover(opts.suite)
    inputs = [load_input(p) for p in opts.inputs]
    settings = Settings(opts.threads, opts.blocks, "cpu", Config(), engine="both")
    graphs = ", ".join(p.name for p in opts.inputs)
    print(f"suite {opts.suite.name}: {len(codes)} codes on {graphs}, {opts.blocks} blocks of "
          f"{opts.threads} threads, CPU backend\n")  # fmt: skip
    print(f"{'code':<42}{'racy':>5}{'fsm':>5}{'values':>7}{'agree':>6}  only one engine (class)")
    totals: Counter[str] = Counter()
    listing = []
    for code in sorted(codes, key=lambda c: c.rel):
        with contextlib.redirect_stdout(io.StringIO()):
            runner = CodeRunner(code, settings)
        fsm: set[tuple] = set()
        values: set[tuple] = set()
        classes: Counter[str] = Counter()
        errors = []
        for data in inputs:
            row = runner.run(data)
            if row.error:
                errors.append(row.error.splitlines()[0][:60])
                continue
            fsm |= keys(row.races, "fsm")
            values |= keys(row.races, "values")
            for n in row.notices:
                if n["code"].startswith("engines-"):
                    classes[n["code"].removeprefix("engines-")] += 1
                    listing.append(f"{code.rel}: {n['message']}")
        agree = len(fsm & values)
        only = ", ".join(f"{k} {v}" for k, v in sorted(classes.items()))
        racy = "yes" if code.labels.racy else "no"
        print(f"{code.rel:<42}{racy:>5}{len(fsm):>5}{len(values):>7}{agree:>6}  "
              f"{only or '-'}{'  ERROR ' + '; '.join(errors) if errors else ''}")  # fmt: skip
        totals.update({"fsm": len(fsm), "values": len(values), "agree": agree,
                       "errors": len(errors), **classes})  # fmt: skip
        if code.labels.racy:
            totals["racy codes"] += 1
            totals["racy codes found by fsm"] += bool(fsm)
            totals["racy codes found by values"] += bool(values)
    print("\ntotals: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    print("\ndisagreements:")
    for line in listing:
        print(f"  {line}")


if __name__ == "__main__":
    main()
