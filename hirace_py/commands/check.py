"""`hirace check`: run kernels under the race checker and report.

hirace check kernel.cu --launch spec.toml   # the launches of a spec
hirace check kernels/                      # a litmus suite (manifest.toml)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hirace_py import litmus
from hirace_py.backends.select import BACKENDS
from hirace_py.commands.common import add_compile_options, config, read_source, write_output
from hirace_py.errors import HiraceError
from hirace_py.launchspec import load as load_spec
from hirace_py.report import FORMATS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check",
        help="check kernels (or a litmus suite) for data races",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("target", type=Path, help="a .cu file, or a directory with manifest.toml")
    p.add_argument("--launch", type=Path, help="launch spec (TOML) for a .cu file")
    p.add_argument("--backend", choices=BACKENDS, default="auto")
    p.add_argument("--format", choices=sorted(FORMATS), default="text")
    p.add_argument("-o", "--output", type=Path, help="write the report here (default: stdout)")
    add_compile_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    target: Path = args.target
    if target.is_dir():
        if not (target / "manifest.toml").is_file():
            raise HiraceError(f"{target}: a directory to check needs a manifest.toml")
        return run_suite(args)
    if not target.is_file():
        raise HiraceError(f"{target}: no such file or directory")
    if args.launch is None:
        raise HiraceError(f"{target}: --launch SPEC.toml is required to check a kernel file")
    return run_kernel(args)


def run_kernel(args: argparse.Namespace) -> int:
    from hirace_py.checker import Checker

    specs = load_spec(args.launch)
    checker = Checker(read_source(args.target), str(args.target), config(args), args.backend,
                      args.include_dirs)  # fmt: skip
    print(f"hirace: {checker.backend_note}", file=sys.stderr)
    for i, spec in enumerate(specs):
        params = [p.name for p in checker.tables.kernel(spec.kernel).params]
        launch_args = spec.build_args(params, f"{args.launch}: launch[{i}]")
        checker.launch(spec.kernel, spec.grid, spec.block, launch_args, spec.shared_bytes,
                       spec.seed, spec.schedule)  # fmt: skip
    write_output(FORMATS[args.format](checker.report), args.output)
    return checker.report.exit_status


def run_suite(args: argparse.Namespace) -> int:
    from hirace_py.backends.select import resolve

    _, note = resolve(args.backend)
    print(f"hirace: {note}", file=sys.stderr)
    results = litmus.run(args.target, args.backend, config(args))
    write_output(litmus.table(results), args.output)
    return 0 if all(r.ok for r in results) else 1
