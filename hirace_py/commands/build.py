"""`hirace build`: instrument a CUDA program and build it with nvcc, or for the CPU backend."""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
from pathlib import Path

from hirace_py.commands.common import add_compile_options, config, defines
from hirace_py.errors import ExitCode, HiraceError
from hirace_py.nvcc_options import includes_and_defines, split
from hirace_py.program import DEFAULT_ARCH, BuildOptions, build
from hirace_py.values import ENGINES
from hirace_py.values.programs import builds


def add_program_options(p: argparse.ArgumentParser) -> None:
    """Options shared by `hirace build` and `hirace run`."""
    add_compile_options(p)
    p.add_argument("--nvcc-flags", default="", metavar="FLAGS",
                   help="more nvcc options, as one shell-quoted string")  # fmt: skip
    p.add_argument("--arch", default=DEFAULT_ARCH,
                   help=f"GPU architecture for nvcc -arch (default {DEFAULT_ARCH})")  # fmt: skip
    p.add_argument("--engine", choices=ENGINES, default="fsm",
                   help="race engine: fsm (shadow words); values (LD-style, CPU backend "
                   "only); both: the program built for each (OUT and OUT.values), whose "
                   "reports `hirace run` merges (docs/engines.md)")  # fmt: skip
    p.add_argument("--no-instrument", dest="instrument", action="store_false",
                   help="build the program as it is, without race checking")  # fmt: skip
    p.add_argument("--profile", action="store_true",
                   help="record host-side CUDA calls for the transfer profile (docs/profile.md); "
                   "kernels are not instrumented unless --kernels")  # fmt: skip
    p.add_argument("--kernels", action="store_true",
                   help="with --profile: instrument kernels too (exact reads for unused data, "
                   "and race checking)")  # fmt: skip
    p.add_argument("-l", dest="link_flags", action=_LinkFlag, default=[], metavar="LIB",
                   help="link with library LIB (as nvcc -l)")  # fmt: skip
    p.add_argument("-L", dest="link_flags", action=_LinkFlag, default=[], metavar="DIR",
                   help="search DIR for libraries (as nvcc -L)")  # fmt: skip
    p.add_argument("-W", dest="link_flags", action=_LinkFlag, default=[], metavar="l,OPT",
                   help="-Wl,OPT[,OPT...]: options for the linker (nvcc: -Xlinker)")  # fmt: skip


class _LinkFlag(argparse.Action):
    """Keeps -l, -L and -Wl,... in one list, in the order given."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:  # fmt: skip
        value = str(values)
        if option_string == "-W" and not value.startswith("l,"):
            parser.error(f"-W{value}: only -Wl,OPTIONS (linker options) is supported")
        getattr(namespace, self.dest).append(f"{option_string}{value}")


def options_from(args: argparse.Namespace, sources: list[Path], output: Path,
                 cpu: bool) -> BuildOptions:  # fmt: skip
    """BuildOptions from parsed command-line arguments."""
    try:
        nvcc_flags = tuple(shlex.split(args.nvcc_flags))
    except ValueError as exc:
        raise HiraceError(f"--nvcc-flags: {exc}") from None
    # Its -I and -D are the build's: the instrumenter parses with them too.
    more_dirs, more_defines, nvcc_flags = includes_and_defines(nvcc_flags)
    if args.profile and not args.instrument:
        raise HiraceError("--profile needs the host calls instrumented: drop --no-instrument")
    if args.engine != "fsm" and args.profile:
        raise HiraceError(f"--engine {args.engine}: --profile records host calls with the fsm "
                          "engine only")  # fmt: skip
    if args.engine != "fsm" and not args.instrument:
        raise HiraceError(f"--engine {args.engine} checks races: drop --no-instrument")
    if args.kernels and not args.profile:
        raise HiraceError("--kernels goes with --profile (without it, kernels are instrumented)")
    if cpu and (dropped := split(nvcc_flags).not_applied):
        print(f"hirace: --nvcc-flags: not applied on the CPU backend: {' '.join(dropped)} "
              "(GPU code generation, device debugging and the dialect are nvcc's; the CPU "
              "backend compiles C++17 at its own optimisation level)", file=sys.stderr)  # fmt: skip
    settings = config(args)
    if args.profile and not args.kernels:
        settings = dataclasses.replace(settings, kernels=())
    return BuildOptions(
        sources=tuple(sources),
        output=output,
        cpu=cpu,
        include_dirs=(*args.include_dirs, *more_dirs),
        defines=defines(args, more_defines),
        nvcc_flags=nvcc_flags,
        link_flags=tuple(args.link_flags),
        arch=args.arch,
        config=settings,
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
    p.add_argument("sources", nargs="+", type=Path, metavar="INPUT",
                   help="program inputs: CUDA (.cu), C++ (.cpp, .cc, ...) and C (.c) sources, "
                   "object files and libraries (.o, .a, .so)")  # fmt: skip
    p.add_argument("-o", "--output", type=Path, required=True, help="the program to write")
    p.add_argument("--cpu", action="store_true", help="build for the CPU backend (g++)")
    add_program_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for engine, options in builds(options_from(args, args.sources, args.output, args.cpu),
                                  args.engine).items():  # fmt: skip
        built = build(options)
        if args.engine == "both":
            print(f"hirace: {built.executable}: the {engine} engine", file=sys.stderr)
    for source, includer in built.included:
        print(f"hirace: {source} is included by {includer}: built as part of it",
              file=sys.stderr)  # fmt: skip
    print_warnings(built.warnings, ", ".join(map(str, args.sources)))
    return ExitCode.CLEAN
