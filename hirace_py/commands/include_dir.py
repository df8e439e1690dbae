"""`hirace include-dir`: print a directory holding the runtime header for nvcc -I."""

from __future__ import annotations

import argparse

from hirace_py.checker import include_dir
from hirace_py.errors import ExitCode


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "include-dir",
        help="print the directory of hirace_runtime.cuh (for nvcc -I)",
        description="Render hirace_runtime.cuh if needed and print its directory, for "
        "`nvcc -I$(hirace include-dir) app.hirace.cu`.",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    print(include_dir())
    return ExitCode.CLEAN
