"""`hirace run`: build a CUDA program (cached) and run it: `hirace run app.cu -- ARGS`."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from hirace_py.commands.build import add_program_options, options_from, print_warnings
from hirace_py.errors import HiraceError
from hirace_py.program import build, cached_build, gpu_usable


class _TailParser(argparse.ArgumentParser):
    """Parses what follows the first source; a usage error is a HiraceError."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise HiraceError(f"run: {message}")


def _add_options(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument("--cpu", dest="where", action="store_const", const="cpu",
                       help="run on the CPU backend")  # fmt: skip
    where.add_argument("--gpu", dest="where", action="store_const", const="gpu",
                       help="build with nvcc and run on the GPU")  # fmt: skip
    p.add_argument("--no-cache", dest="cache", action="store_false",
                   help="build afresh into a temporary directory")  # fmt: skip
    add_program_options(p)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="build a CUDA program with race checking and run it",
        description="Instrument and build a CUDA program (cached by content), run it with "
        "ARGS, and exit with its exit status. The race report is printed when it exits "
        "(HIRACE_REPORT=path writes JSON too; HIRACE_EXITCODE=1 exits 1 on races). Runs on "
        "the GPU when nvcc and a GPU are present, else on the CPU backend.",
        usage="hirace run SRC.cu [SRC2.cu ...] [options] [-- ARGS ...]",
    )
    _add_options(p)
    # Everything from the first source on: the sources, more options, and
    # after `--` the program's own arguments (argparse would drop the `--`).
    p.add_argument("command", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def _split(args: argparse.Namespace) -> tuple[list[Path], list[str]]:
    """Sources (with any options after them applied to `args`) and the program's arguments."""
    command = list(args.command)
    if "--" in command:
        at = command.index("--")
        head, program_args = command[:at], command[at + 1 :]
    else:
        head, program_args = command, []
    tail = _TailParser(prog="hirace run", add_help=False)
    _add_options(tail)
    tail.add_argument("sources", nargs="*", type=Path)
    tail.parse_args(head, namespace=args)
    if not args.sources:
        raise HiraceError("run: no source files given (hirace run SRC.cu [-- ARGS])")
    return args.sources, program_args


def run(args: argparse.Namespace) -> int:
    sources, program_args = _split(args)
    if args.where is None:
        usable, why = gpu_usable()
        args.where = "gpu" if usable else "cpu"
        print(f"hirace: running on the {'GPU' if usable else 'CPU backend'} ({why})",
              file=sys.stderr)  # fmt: skip
    output = Path(sources[0].stem or "program")
    options = options_from(args, sources, output, cpu=args.where == "cpu")
    if args.cache:
        built = cached_build(options)
        print_warnings(built.warnings, ", ".join(map(str, sources)))
        return _execute(built.executable, program_args)
    with tempfile.TemporaryDirectory(prefix="hirace-run-") as scratch:
        directory = Path(scratch)
        built = build(options.__class__(**{**options.__dict__, "output": directory / output}))
        print_warnings(built.warnings, ", ".join(map(str, sources)))
        return _execute(built.executable, program_args)


def _execute(executable: Path, program_args: list[str]) -> int:
    """Runs the program with this process's stdin, stdout and stderr; its exit status
    (128 + n when a signal n ended it, as a shell reports it)."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        proc = subprocess.run([str(executable), *program_args], check=False)
    except OSError as exc:
        raise HiraceError(f"{executable}: cannot run: {exc.strerror}") from None
    return proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
