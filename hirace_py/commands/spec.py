"""`hirace spec k.cu`: write a starting launch spec for every kernel of a file."""

from __future__ import annotations

import argparse
from pathlib import Path

from hirace_py import generate
from hirace_py.commands.common import (
    Output,
    add_compile_options,
    config,
    defines,
    dims,
    read_source,
)
from hirace_py.errors import ExitCode
from hirace_py.instrument import instrument


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "spec",
        help="write a starting launch spec for the kernels of a file",
        description="Write a launch spec (docs/launch-spec.md) with one launch per kernel of "
        "FILE: arrays generated from the launch, scalars as `hirace check --kernel` makes "
        "them. Edit it to your kernels' real sizes and values, then `hirace check FILE "
        "--launch SPEC`. A parameter hirace cannot make a value for (a struct, a pointer to "
        "pointers) is left as a comment saying so, for you to fill in.",
    )
    p.add_argument("source", type=Path, help="CUDA source file (.cu)")
    p.add_argument("-o", "--output", type=Path, help="write the spec here (default: stdout)")
    p.add_argument("--grid", type=dims, default=(1, 1, 1), metavar="X[,Y[,Z]]",
                   help="every launch's grid")  # fmt: skip
    p.add_argument("--block", type=dims, default=(32, 1, 1), metavar="X[,Y[,Z]]",
                   help="every launch's block")  # fmt: skip
    add_compile_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    output = Output(args.output)
    source = read_source(args.source)
    tables = instrument(source, str(args.source), config(args), args.include_dirs,
                        defines(args)).tables  # fmt: skip
    specs, notes = [], []
    for kernel in tables.kernels:
        try:
            specs.append(generate.launch(kernel, args.grid, args.block, {}))
        except generate.GenerateError as exc:
            notes.append(f"{kernel.name}: {exc}")
    header = [f"Launch spec for {args.source}, written by `hirace spec`: a start, to edit.",
              "Arrays are random; integer scalars are the grid's thread count."]  # fmt: skip
    header += [f"Not written, give these kernels' launches yourself: {n}" for n in notes]
    output.write(generate.to_toml(specs, "\n".join(header)))
    return ExitCode.CLEAN
