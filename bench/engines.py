"""The FSM and values engines side by side on hirace's mini-suite (`--engine both`).

For every code of the mini-suite and every input graph, the code's test_kernel
runs once under each engine (hirace_py.values.engines.BothChecker), launched as
the mini-suite's driver header launches it (indigo/minisuite/README.md: data1 and
data2 of max(nodes, edges) elements, element 0 zero, then `rand() % nodes` and
`rand() % edges` from the C library's default seed). The values engine checks
kernels, not whole programs, so this harness, which knows the mini-suite's own
kernel interface, stands in for its driver; `hirace check SUITE --inputs` runs
the programs themselves with the FSM engine. The table gives, per code, the race
keys (line pair, kind, space) each engine found, and every key one engine found
alone with its class (hirace_py.values.compare). The totals count keys; the
last lines list the disagreements one by one, for docs/engines.md.

Run: python bench/engines.py [SUITE_DIR] [--inputs G.egr ...] [--blocks 64] [--threads 256]
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import ctypes.util
import io
import re
import tempfile
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import numpy as np

from hirace_py.config import Config
from hirace_py.indigo.ecl import read_ecl
from hirace_py.indigo.suite import discover
from hirace_py.launch_config import LaunchConfig
from hirace_py.values.engines import make_checker

ROOT = Path(__file__).resolve().parent.parent
# The driver header holds main; the kernels need only the standard headers it
# includes. Its include line is replaced, in place (no line number moves), by
# an include of a header of just those.
DRIVER_INCLUDE = re.compile(r'^#include "indigo_cuda.h"$', re.M)
STANDARD = """#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
using std::max;
using std::min;
"""
_libc = ctypes.CDLL(ctypes.util.find_library("c") or None)


def kernel_args(graph_path: Path, dtype: np.dtype) -> list[object]:
    """test_kernel's arguments as the mini-suite's driver makes them."""
    g = read_ecl(graph_path)
    edges = max(g.edges, 1)
    size = max(g.nodes, edges)
    _libc.srand(1)
    r = [_libc.rand() for _ in range(2 * (size - 1))]
    data1 = np.zeros(size, dtype)
    data2 = np.zeros(size, dtype)
    data1[1:] = [v % g.nodes for v in r[: size - 1]]
    data2[1:] = [v % edges for v in r[size - 1 :]]
    nlist = np.zeros(edges, np.int32)
    nlist[: g.edges] = g.nlist
    return [g.nindex.astype(np.int32), nlist, data1, data2, g.nodes]


def data_type(source: str) -> np.dtype:
    match = re.search(r"typedef\s+([\w ]+?)\s+data_t;", source)
    assert match, "no data_t typedef"
    names = {"int": np.int32, "unsigned int": np.uint32, "unsigned long long": np.uint64,
             "float": np.float32, "double": np.float64}  # fmt: skip
    return np.dtype(names[" ".join(match.group(1).split())])


def race_rows(report: object) -> list[dict]:
    return [{**r.to_json(), "lines": list(r.lines())} for r in report.races]  # type: ignore[attr-defined]


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
    codes = discover(opts.suite)
    scratch = Path(tempfile.mkdtemp(prefix="hirace-engines-"))
    (scratch / "standard.h").write_text(STANDARD)
    include = f'#include "{scratch / "standard.h"}"'
    graphs = ", ".join(p.name for p in opts.inputs)
    print(f"suite {opts.suite.name}: {len(codes)} codes on {graphs}, {opts.blocks} blocks of "
          f"{opts.threads} threads, CPU backend\n")  # fmt: skip
    print(f"{'code':<42}{'racy':>5}{'fsm':>5}{'values':>7}{'agree':>6}  only one engine (class)")
    totals: Counter[str] = Counter()
    listing = []
    for code in sorted(codes, key=lambda c: c.rel):
        source = code.path.read_text()
        fsm: set[tuple] = set()
        values: set[tuple] = set()
        classes: Counter[str] = Counter()
        errors = []
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                checker = make_checker("both", DRIVER_INCLUDE.sub(include, source),
                                       str(code.path), Config(), "cpu")  # fmt: skip
        except Exception as exc:  # one code failing must not stop the table
            errors.append(str(exc).splitlines()[0][:60])
            checker = None
        for graph in opts.inputs if checker is not None else []:
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    launch = LaunchConfig.of(opts.blocks, opts.threads, exited_threads="arrive")
                    report = checker.launch("test_kernel", launch,
                                            kernel_args(graph, data_type(source)))
            except Exception as exc:
                errors.append(str(exc).splitlines()[0][:60])
                continue
            races = race_rows(report)
            fsm |= keys(races, "fsm")
            values |= keys(races, "values")
            for n in (asdict(n) for n in report.notices):
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
