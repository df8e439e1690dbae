"""`hirace report DUMP`: render the dump a whole program wrote (HIRACE_DUMP=DUMP)."""

from __future__ import annotations

import argparse
from pathlib import Path

from hirace_py import dump
from hirace_py.commands.common import Output
from hirace_py.errors import ExitCode
from hirace_py.report import FORMATS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="render the race report of a program run from its dump",
        description="Render the dump an instrumented program wrote at exit (run it with "
        "HIRACE_DUMP=FILE; `hirace run` does this for you) as a race report. The dump can "
        "come from anywhere, e.g. a program built with nvcc and run on a GPU machine. "
        "Source lines are read from the sources' paths when they exist here.",
    )
    p.add_argument("dump", type=Path, help="the dump (JSON) the program wrote")
    p.add_argument("--format", choices=sorted(FORMATS), default="text",
                   help="report format (default: text)")  # fmt: skip
    p.add_argument("-o", "--output", type=Path, help="write the report here (default: stdout)")
    p.add_argument("--profile", action="store_true",
                   help="add the transfer profile of the run's host record "
                   "(docs/profile.md)")  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> ExitCode:
    output = Output(args.output)
    report = dump.load(args.dump, profile=args.profile)
    output.write(FORMATS[args.format](report))
    return report.exit_status
