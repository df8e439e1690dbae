"""The real-code trial's programs under both race engines (`hirace run --engine both`).

    python bench/engines_programs.py DIR --only REGEX [--programs bench/realworld_programs.toml]

For every program of bench/realworld.py's manifest under DIR whose name
matches REGEX: `hirace run --cpu --engine both` (the program built once per
engine, run with the manifest's arguments in a scratch directory holding its
`data/`), and one table line: whether each engine's run printed the same
output (lines the manifest ignores dropped: timings), how many launches, the
race keys each engine found, and the disagreements by class
(hirace_py.values.compare). The held-out samples are never listed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from realworld import HIRACE, comparable, load_manifest, programs_of, suite_of


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--only", required=True, help="regex: the programs to run")
    ap.add_argument("--programs", type=Path,
                    default=Path(__file__).resolve().parent / "realworld_programs.toml")
    args = ap.parse_args()
    suite = suite_of(args.dir, load_manifest(args.programs))
    includes = [str((args.dir / i).resolve()) for i in suite.include]
    only = re.compile(args.only)
    head = ("program", "outputs equal", "launches", "FSM keys", "values keys",
            "FSM only (class)", "values only (class)", "seconds")  # fmt: skip
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join("---" for _ in head) + " |")
    for prog in programs_of(args.dir, suite, includes, None):
        if not only.search(prog.name):
            continue
        print(line(prog), flush=True)
    return 0


def line(prog: object) -> str:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hirace-engines-") as tmp:
        work = Path(tmp)
        for extra in prog.data:  # type: ignore[attr-defined]
            if extra.exists():
                (work / extra.name).symlink_to(extra)
        report = work / "report.json"
        cmd = ["nice", *HIRACE, "run", "--engine", "both", "--format", "json", "-o",
               str(report), *map(str, prog.sources),  # type: ignore[attr-defined]
               *[f"-I{i}" for i in prog.includes],  # type: ignore[attr-defined]
               "--", *prog.args]  # type: ignore[attr-defined]  # fmt: skip
        env = {**os.environ, "HIRACE_TIMEOUT": "120"}
        try:
            proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, env=env,
                                  timeout=prog.timeout * 2 + 900, check=False)  # type: ignore[attr-defined]  # fmt: skip
        except subprocess.TimeoutExpired:
            return f"| {prog.name} | timed out | | | | | | |"  # type: ignore[attr-defined]
        seconds = time.perf_counter() - start
        if not report.is_file():
            why = (proc.stderr.strip().splitlines() or ["?"])[-1][:120]
            return f"| {prog.name} | no report: {why} | | | | | | {seconds:.0f} |"  # type: ignore[attr-defined]
        doc = json.loads(report.read_text())
    # The program ran twice (FSM, then values) on this process's stdout.
    out = comparable(proc.stdout, prog.ignore)  # type: ignore[attr-defined]
    half = len(out) // 2
    equal = len(out) % 2 == 0 and out[:half] == out[half:]
    races = [r for launch in doc["launches"] for r in launch["races"]]

    def keys(engine: str) -> int:
        return len({(r["first"]["site"]["line"] if r["first"]["site"] else 0,
                     r["second"]["site"]["line"] if r["second"]["site"] else 0, r["kind"])
                    for r in races if r["engine"] == engine})  # fmt: skip

    sides: dict[str, Counter] = {"fsm": Counter(), "values": Counter()}
    for n in doc["notices"]:
        if n["code"].startswith("engines-") and n["code"] != "engines-diverged":
            side = "values" if "by the values engine only" in n["message"] else "fsm"
            sides[side][n["code"].removeprefix("engines-")] += 1
    diverged = any(n["code"] == "engines-diverged" for n in doc["notices"])
    launches = f"{len(doc['launches'])}{' (diverged)' if diverged else ''}"

    def by(side: str) -> str:
        return ", ".join(f"{k} {v}" for k, v in sorted(sides[side].items())) or "-"

    cells = (prog.name, "yes" if equal else "no", launches, keys("fsm"),  # type: ignore[attr-defined]
             keys("values"), by("fsm"), by("values"), f"{seconds:.0f}")  # fmt: skip
    return "| " + " | ".join(map(str, cells)) + " |"


if __name__ == "__main__":
    sys.exit(main())
