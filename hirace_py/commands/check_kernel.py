"""`hirace check FILE.cu`: the launches of a spec, or one kernel with generated arguments."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hirace_py import generate
from hirace_py.commands.check_mode import CheckMode, limit_each_launch
from hirace_py.commands.common import (
    Output,
    config,
    defines,
    dims,
    program_output_to_stderr,
    read_source,
)
from hirace_py.errors import HiraceError, UnknownKernel, UsageError
from hirace_py.launchspec import LaunchSpec
from hirace_py.launchspec import load as load_spec
from hirace_py.report import FORMATS

if TYPE_CHECKING:
    from hirace_py.instrument.model import Tables


def add_options(group: argparse._ArgumentGroup) -> list[argparse.Action]:
    return [
        group.add_argument("--launch", type=Path, metavar="SPEC.toml",
                           help="the launches to check (docs/launch-spec.md)"),
        group.add_argument("--kernel", metavar="NAME",
                           help="without a spec: check this kernel with generated arguments"),
        group.add_argument("--grid", type=dims, metavar="X[,Y[,Z]]",
                           help="--kernel's grid (default: 1)"),
        group.add_argument("--block", type=dims, metavar="X[,Y[,Z]]",
                           help="--kernel's block (default: 32)"),
        group.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                           help="a scalar argument of --kernel (default: integers the grid's "
                           "thread count, reals 1.0; arrays are generated)"),
        group.add_argument("--seeds", type=int, metavar="N",
                           help="--kernel launches with other random inputs and schedules "
                           "(default: 1)"),
        group.add_argument("--deterministic", action="store_true",
                           help="results are the values engine's union copies: the same for "
                           "every schedule (needs --engine values or both)"),
    ]  # fmt: skip


NO_SPEC = ("kernel", "grid", "block", "arg", "seeds")


def _check_launch_options(args: argparse.Namespace) -> None:
    """Either a spec or --kernel with its launch; UsageError otherwise."""
    if args.deterministic and args.engine == "fsm":
        raise HiraceError("--deterministic needs --engine values or both")
    given = [f"--{n}" for n in NO_SPEC if getattr(args, n) not in (None, [])]
    if args.launch is not None and given:
        raise UsageError(f"{', '.join(given)}: give either --launch SPEC.toml or "
                         "--kernel NAME with its launch, not both")  # fmt: skip
    if args.launch is None and args.kernel is None:
        raise UsageError(f"{args.target}: give --launch SPEC.toml, or --kernel NAME "
                         "(with --grid, --block, --arg) to check one kernel without a spec "
                         f"(`hirace spec {args.target}` writes a starting spec)")  # fmt: skip
    if args.seeds is not None and args.seeds < 1:
        raise UsageError(f"--seeds {args.seeds}: must be at least 1")
    limit_each_launch(args)


def _specs(args: argparse.Namespace, tables: Tables) -> tuple[list[LaunchSpec], str]:
    """The launches to run, and what names them in errors (the spec file, or --kernel)."""
    if args.launch is not None:
        return load_spec(args.launch), str(args.launch)
    seeds = 1 if args.seeds is None else args.seeds
    kernel = tables.kernel(args.kernel)
    grid, block = args.grid or (1, 1, 1), args.block or (32, 1, 1)
    launches = generate.launches(kernel, grid, block, generate.parse_args(args.arg), seeds)
    return launches, f"--kernel {args.kernel}"


def run(args: argparse.Namespace) -> int:
    """Every launch of the spec in order. Each launch's kernel and arguments are
    checked before any runs; the report covers the launches that ran, also when
    a later one fails (its error ends the command)."""
    from hirace_py.arguments import check_arguments
    from hirace_py.values.engines import make_checker

    _check_launch_options(args)
    if args.launch is not None:
        load_spec(args.launch)  # a bad spec is reported before anything is compiled
    output = Output(args.output)
    failure: HiraceError | None = None
    with program_output_to_stderr(output.to_stdout):
        checker = make_checker(args.engine, read_source(args.target), str(args.target),
                               config(args), args.backend, args.include_dirs,
                               args.deterministic, defines(args))  # fmt: skip
        specs, source = _specs(args, checker.tables)
        print(f"hirace: {checker.backend_note}", file=sys.stderr)
        launches = []
        for i, spec in enumerate(specs):
            where = f"{source}: launch[{i}]"
            try:
                kernel = checker.tables.kernel(spec.kernel)
            except UnknownKernel as exc:
                raise exc.located(f"{where}.kernel") from None
            launch_args = spec.build_args(kernel.params, where)
            try:
                check_arguments(kernel, launch_args)
            except HiraceError as exc:
                raise exc.located(where) from None
            launches.append((where, spec, launch_args))
        for where, spec, launch_args in launches:
            try:
                checker.launch(spec.kernel, spec.config, launch_args)
            except HiraceError as exc:
                failure = exc.located(where)
                break
    if checker.report.launches or failure is None:
        output.write(FORMATS[args.format](checker.report))
    if failure is not None:
        raise failure
    return checker.report.exit_status


MODE = CheckMode("kernel files", "a .cu file", tuple(sorted(FORMATS)), add_options, run)
