"""The `hirace` console script: dispatches to one module per sub-command.

Exit status (hirace_py.errors.ExitCode): 0 clean, 1 races or findings,
2 usage or input error, 3 tool failure, 130 interrupted. Every error is one
line on stderr naming the offending file, line, key or parameter; a
traceback is printed only with --debug.
"""

from __future__ import annotations

import argparse
import importlib
import sys

import hirace_py
from hirace_py.commands.common import HelpFormatter
from hirace_py.errors import ExitCode, HiraceError

# Sub-command modules under hirace_py.commands; each defines register(subparsers).
COMMANDS = [
    "fsm", "instrument", "include-dir", "check", "spec", "graph", "build", "run", "report",
    "verify",
]  # fmt: skip


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> None:  # type: ignore[override]
        """Usage errors are one line and exit 2, like every other input error."""
        self.exit(ExitCode.USAGE, f"hirace: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hirace", description=__doc__.splitlines()[0],
                     epilog="exit status: 0 clean, 1 races or findings, 2 usage or input "
                     "error, 3 tool failure, 130 interrupted")  # fmt: skip
    parser.add_argument("--version", action="version", version=f"hirace {hirace_py.__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of any error (default: one line)")  # fmt: skip
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
        if args.debug:
            raise
        print(f"hirace: error: {str(exc).strip()}", file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        if args.debug:
            raise
        print("hirace: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return ExitCode.CLEAN
    except Exception as exc:  # a bug in hirace: never a bare traceback for the user
        if args.debug:
            raise
        first = (str(exc).strip() or "-").splitlines()[0]
        print(f"hirace: internal error: {type(exc).__name__}: {first} "
              "(rerun with --debug for the traceback)", file=sys.stderr)  # fmt: skip
        return ExitCode.TOOL_FAILURE


if __name__ == "__main__":
    sys.exit(main())
