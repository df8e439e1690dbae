"""`hirace instrument`: rewrite CUDA source so every memory access is checked for races."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hirace_py.commands.common import Output, add_compile_options, config, defines, read_source
from hirace_py.errors import ExitCode, HiraceError
from hirace_py.instrument import instrument


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "instrument",
        help="instrument CUDA source for race checking",
        description="Rewrite CUDA source so every global and shared memory access goes through "
        "hirace's runtime. Build the output with `hirace include-dir` on the include path.",
    )
    p.add_argument("source", type=Path, help="CUDA source file (.cu)")
    p.add_argument("-o", "--output", type=Path, help="output file (default: stdout)")
    p.add_argument("--tables", type=Path, help="write sites, variables and kernels as JSON")
    p.add_argument(
        "--headers",
        type=Path,
        metavar="DIR",
        help="where the rewritten copies of the user headers the source includes go "
        "(default: OUTPUT.headers/, or SOURCE.headers/ when writing to stdout); the "
        "output's #include lines name them",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="treat anything that cannot be instrumented as an error (exit 2)",
    )
    p.add_argument(
        "--program",
        action="store_true",
        help="a unit of a whole program even without host code (kernels launched from "
        "another file); implied by host code that launches or allocates",
    )
    p.add_argument(
        "--target",
        choices=["gpu", "cpu"],
        default="gpu",
        help="cpu: also turn launches into CPU-backend calls (default gpu)",
    )
    add_compile_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    source = read_source(args.source)
    where = args.output if args.output is not None else args.source
    header_dir = args.headers or where.with_name(where.name + ".headers")
    output, tables = Output(args.output), Output(args.tables) if args.tables else None
    result = instrument(
        source, str(args.source), config(args), args.include_dirs, defines(args),
        target=args.target, program=args.program, header_dir=header_dir,
    )  # fmt: skip
    warnings = result.tables.warnings
    for w in warnings:
        print(w, file=sys.stderr)
    if warnings:
        print(f"hirace: {len(warnings)} construct(s) not instrumented in {args.source}",
              file=sys.stderr)  # fmt: skip
        if args.strict:
            raise HiraceError(f"--strict: {len(warnings)} construct(s) could not be instrumented")
    if result.headers:
        try:
            result.write_headers()
        except OSError as exc:
            raise HiraceError(f"{header_dir}: cannot write the header copies: {exc}") from None
        names = ", ".join(
            f"{h.original}{'' if h.instrumented else ' (includes only)'}" for h in result.headers
        )
        print(f"hirace: rewrote {len(result.headers)} user header(s) into {header_dir}/: {names}",
              file=sys.stderr)  # fmt: skip
    output.write(result.source)
    if tables is not None:
        tables.write(json.dumps(result.tables.to_json(), indent=2) + "\n")
    return ExitCode.CLEAN
