"""`hirace build`: instrument a CUDA program and build it with nvcc, or for the CPU backend."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from hirace_py.commands.common import add_compile_options, config, defines
from hirace_py.errors import HiraceError
from hirace_py.program import DEFAULT_ARCH, BuildOptions, build


def add_program_options(p: argparse.ArgumentParser) -> None:
    """Options shared by `hirace build` and `hirace run`."""
    add_compile_options(p)
    p.add_argument("--nvcc-flags", default="", metavar="FLAGS",
                   help="more nvcc options, as one shell-quoted string")  # fmt: skip
    p.add_argument("--arch", default=DEFAULT_ARCH,
                   help=f"GPU architecture for nvcc -arch (default {DEFAULT_ARCH})")  # fmt: skip
    p.add_argument("--no-instrument", dest="instrument", action="store_false",
                   help="build the program as it is, without race checking")  # fmt: skip


def options_from(args: argparse.Namespace, sources: list[Path], output: Path,
                 cpu: bool) -> BuildOptions:  # fmt: skip
    """BuildOptions from parsed command-line arguments."""
    try:
        nvcc_flags = tuple(shlex.split(args.nvcc_flags))
    except ValueError as exc:
        raise HiraceError(f"--nvcc-flags: {exc}") from None
    return BuildOptions(
        sources=tuple(sources),
        output=output,
        cpu=cpu,
        include_dirs=tuple(args.include_dirs),
        defines=defines(args),
        nvcc_flags=nvcc_flags,
        arch=args.arch,
        config=config(args),
        instrument=args.instrument,
    )


def print_warnings(warnings: tuple, what: str) -> None:
    for w in warnings:
        print(w, file=sys.stderr)
    if warnings:
        print(f"hirace: {len(warnings)} construct(s) not instrumented in {what}", file=sys.stderr)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "build",
        help="instrument a CUDA program and build it (nvcc, or --cpu)",
        description="Instrument every source of a CUDA program and build it: with nvcc, or "
        "with --cpu for hirace's CPU backend. The program behaves like the original and "
        "prints a race report when it exits. The instrumented sources are kept in "
        "OUT.hirace/.",
    )
    p.add_argument("sources", nargs="+", type=Path, metavar="SRC.cu", help="program sources")
    p.add_argument("-o", "--output", type=Path, required=True, help="the program to write")
    p.add_argument("--cpu", action="store_true", help="build for the CPU backend (g++)")
    add_program_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    built = build(options_from(args, args.sources, args.output, args.cpu))
    print_warnings(built.warnings, ", ".join(map(str, args.sources)))
    return 0
