"""`hirace graph`: generate ECL graph files and describe them.

    hirace graph gen FAMILY --nodes N [--degree D] --seed S -o FILE.egr
    hirace graph info FILE.egr

`gen` writes exactly the bytes of `hirace_py.indigo.generate(...)`; `info`
prints one `key: value` line per property. Bad arguments and malformed files
raise `HiraceError` (exit status 2).
"""

from __future__ import annotations

import argparse

from hirace_py.errors import ExitCode
from hirace_py.indigo.ecl import read_ecl, write_ecl
from hirace_py.indigo.generators import FAMILIES, generate
from hirace_py.indigo.properties import describe


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add `graph gen` and `graph info` to the `hirace` parser."""
    parser = subparsers.add_parser("graph", help="generate and inspect ECL graph files")
    sub = parser.add_subparsers(dest="graph_command", required=True)

    gen = sub.add_parser("gen", help="generate a graph of one family")
    gen.add_argument("family", metavar="FAMILY", help="one of: " + ", ".join(FAMILIES))
    gen.add_argument("--nodes", type=int, required=True, help="number of vertices")
    gen.add_argument(
        "--degree", type=float, default=None, help="average out-degree (random families)"
    )
    gen.add_argument("--seed", type=int, required=True, help="random seed")
    gen.add_argument("-o", "--output", required=True, metavar="FILE.egr", help="output file")
    gen.set_defaults(func=_gen)

    info = sub.add_parser("info", help="describe an ECL graph file")
    info.add_argument("file", metavar="FILE.egr")
    info.set_defaults(func=_info)


def _gen(args: argparse.Namespace) -> int:
    graph = generate(args.family, args.nodes, seed=args.seed, degree=args.degree)
    write_ecl(graph, args.output)
    print(f"{args.output}: {args.family}, {graph.nodes} nodes, {graph.edges} edges")
    return ExitCode.CLEAN


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _info(args: argparse.Namespace) -> int:
    info = describe(read_ecl(args.file))
    od, id_ = info.out_degree, info.in_degree
    lines = [
        f"file: {args.file}",
        f"nodes: {info.nodes}",
        f"edges: {info.edges}",
        f"out-degree: min {od.min}, mean {od.mean:.2f}, max {od.max}",
        f"in-degree: min {id_.min}, mean {id_.mean:.2f}, max {id_.max}",
        f"self-loops: {info.self_loops}",
        f"duplicate edges: {info.duplicate_edges}",
        f"sorted neighbour lists: {_yes(info.sorted_lists)}",
        f"edge direction: {info.direction}",
        f"DAG: {_yes(info.is_dag)}",
        f"vertex with 2+ neighbours: {_yes(info.multi_neighbour)}",
        f"shared neighbour: {_yes(info.shared_neighbour)}",
    ]
    print("\n".join(lines))
    return ExitCode.CLEAN
