"""`hirace run`: build a CUDA program (cached), run it, and render its race report.

`hirace run app.cu [options] -- ARGS`: the program runs with this process's
stdin, stdout and stderr; it writes its raw records to a dump at exit
(HIRACE_DUMP), which is rendered like `hirace report DUMP` does, to stderr
(or -o FILE). Exit status: the program's own when it is not 0, else 1 when it
raced, else 0.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from hirace_py import dump
from hirace_py.backends.select import program_gpu_status
from hirace_py.commands.build import add_program_options, options_from, print_warnings
from hirace_py.commands.common import Output
from hirace_py.errors import ExitCode, HiraceError
from hirace_py.program import Built, build, cached_build
from hirace_py.report import FORMATS
from hirace_py.values.programs import builds, merge


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
    p.add_argument("--format", choices=sorted(FORMATS), default="text",
                   help="race report format (default: text)")  # fmt: skip
    p.add_argument("-o", "--output", type=Path,
                   help="write the race report here (default: stderr)")  # fmt: skip
    add_program_options(p)


def register(sub: argparse._SubParsersAction) -> None:
    _register_profile(sub)
    p = sub.add_parser(
        "run",
        help="build a CUDA program with race checking and run it",
        description="Instrument and build a CUDA program (cached by content) and run it with "
        "ARGS. Its race report is rendered when it exits, to stderr or -o FILE. Exit status: "
        "the program's own when not 0, else 1 when it raced, else 0. Runs on the GPU when "
        "nvcc and a GPU are present, else on the CPU backend.",
        usage="hirace run SRC.cu [SRC2.cu ...] [options] [-- ARGS ...]",
    )
    _add_options(p)
    # Everything from the first source on: the sources, more options, and
    # after `--` the program's own arguments (argparse would drop the `--`).
    p.add_argument("command", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def _register_profile(sub: argparse._SubParsersAction) -> None:
    """`hirace profile`: `hirace run --profile`."""
    p = sub.add_parser(
        "profile",
        help="run a CUDA program and report data movement that does nothing useful",
        description="Build a CUDA program with its host-side CUDA calls recorded (kernels are "
        "not instrumented unless --kernels), run it with ARGS, and report duplicate "
        "transfers, round trips, repeated allocations and unused data, with their call sites "
        "and an estimated saving (docs/profile.md). Exit status: the program's own when not "
        "0, else 1 when something was found, else 0.",
        usage="hirace profile SRC.cu [SRC2.cu ...] [options] [-- ARGS ...]",
    )
    _add_options(p)
    p.add_argument("command", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    p.set_defaults(func=run, profile=True)


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
    output = Output(args.output) if args.output is not None else None
    if args.engine != "fsm":
        if args.where == "gpu":
            raise HiraceError(f"--engine {args.engine}: the values engine runs on the CPU "
                              "backend only (drop --gpu)")  # fmt: skip
        args.where = "cpu"
    if args.where is None:
        usable, why = program_gpu_status()
        args.where = "gpu" if usable else "cpu"
        print(f"hirace: running on the {'GPU' if usable else 'CPU backend'} ({why})",
              file=sys.stderr)  # fmt: skip
    name = Path(sources[0].stem or "program")
    options = options_from(args, sources, name, cpu=args.where == "cpu")
    with tempfile.TemporaryDirectory(prefix="hirace-run-") as scratch:
        directory = Path(scratch)
        programs = []
        for engine, opts in builds(options, args.engine).items():
            if args.cache:
                built = cached_build(opts)
            else:
                built = build(dataclasses.replace(opts, output=directory / opts.output.name))
            programs.append((built, directory / f"dump-{engine}.json"))
        print_warnings(programs[0][0].warnings, ", ".join(map(str, sources)))
        return _run_and_report(programs, program_args, args, output)


def _run_and_report(programs: list[tuple[Built, Path]], program_args: list[str],
                    args: argparse.Namespace, output: Output | None) -> int:  # fmt: skip
    """Runs each program (one per engine) and renders their report, merged when
    there are two (--engine both); the exit status of the first program when it
    is not 0, else 1 when anything was found."""
    reports, statuses = [], []
    # Every engine's build runs under the first one's name, so that a program
    # printing argv[0] prints the same under both engines.
    name = str(programs[0][0].executable)
    for built, dump_path in programs:
        status = _execute(built.executable, name, program_args,
                          dump_path if args.instrument else None)  # fmt: skip
        statuses.append(status)
        if not args.instrument:
            return status
        if not dump_path.is_file():
            # Killed by a signal or by _exit: its exit handlers, which write the dump, never ran.
            print(f"hirace: {built.executable.name} ended with status {status} before writing "
                  "its race records: no report", file=sys.stderr)  # fmt: skip
            return status if status != 0 else ExitCode.TOOL_FAILURE
        reports.append(dump.load(dump_path, profile=args.profile))
    report = reports[0] if len(reports) == 1 else merge(reports[0], reports[1])
    status = statuses[0]
    text = FORMATS[args.format](report)
    if output is None:
        sys.stderr.write(text)
    else:
        output.write(text)
    return status if status != 0 else report.exit_status


def _execute(executable: Path, name: str, program_args: list[str],
             dump_path: Path | None) -> int:  # fmt: skip
    """Runs the program, as `name` (its argv[0]), with this process's stdin, stdout
    and stderr (and HIRACE_DUMP set to `dump_path`); its exit status (128 + n when a
    signal n ended it, as a shell reports it)."""
    sys.stdout.flush()
    sys.stderr.flush()
    env = dict(os.environ)
    if dump_path is not None:
        env["HIRACE_DUMP"] = str(dump_path)
    try:
        proc = subprocess.run([name, *program_args], executable=executable, check=False,
                              env=env)  # fmt: skip
    except OSError as exc:
        raise HiraceError(f"{executable}: cannot run: {exc.strerror}") from None
    return proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
