"""`hirace check DIR`: a litmus suite, every case of DIR/manifest.toml (docs/litmus.md)."""

from __future__ import annotations

import argparse
import sys

from hirace_py import litmus
from hirace_py.commands.check_mode import CheckMode, limit_each_launch
from hirace_py.commands.common import Output, config, defines, program_output_to_stderr
from hirace_py.errors import ExitCode


def add_options(group: argparse._ArgumentGroup) -> list[argparse.Action]:
    """A litmus suite takes no options of its own: its manifest says what to run."""
    return []


def run(args: argparse.Namespace) -> int:
    from hirace_py.backends.select import resolve

    limit_each_launch(args)
    output = Output(args.output)
    _, note = resolve(args.backend)
    print(f"hirace: {note}", file=sys.stderr)
    with program_output_to_stderr(output.to_stdout):
        results = litmus.run(args.target, args.backend, config(args), args.engine,
                             args.include_dirs, defines(args))  # fmt: skip
    output.write(litmus.to_json(results) if args.format == "json" else litmus.table(results))
    return ExitCode.CLEAN if all(r.ok for r in results) else ExitCode.FINDINGS


MODE = CheckMode("litmus suites", "a directory with manifest.toml", ("text", "json"),
                 add_options, run)  # fmt: skip
