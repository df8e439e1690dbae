"""The `hirace` console script: dispatches to one module per sub-command.

Exit status: 0 success / no race, 1 races found (or verification failed),
2 usage or tool error. Every sub-command reports bad input as a one-line
error on stderr naming the offending file, line or key.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from hirace_py.errors import HiraceError

# Sub-command modules under hirace_py.commands; each defines register(subparsers).
COMMANDS = ["fsm", "instrument", "include-dir", "check", "graph", "build", "run", "verify"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        """Usage errors are one line and exit 2, like every other tool error."""
        self.exit(2, f"hirace: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hirace", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"hirace_py.commands.{name.replace('-', '_')}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except HiraceError as exc:
        print(f"hirace: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
