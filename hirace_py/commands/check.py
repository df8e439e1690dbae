"""`hirace check`: run kernels under the race checker and report.

hirace check kernel.cu --launch spec.toml   # the launches of a spec
hirace check kernel.cu --kernel K --grid G --block B [--arg n=1024] [--seeds N]
                                           # one kernel, arguments generated (no spec)
hirace check kernels/                      # a litmus suite (manifest.toml)
hirace check SUITE_DIR --inputs G.egr...   # a labeled suite of programs (docs/indigo.md)

The target decides what is checked; each kind takes the options of its own
group below and the formats it lists. For a suite, every .cu file is a
program, built once and run on every input (see the suite options).
Exit status: 0 when nothing was found (a suite: every code matches its
labels), 1 with races or findings (a suite: a miss, a false alarm or an
error row), 2 on bad input, 3 on a tool failure, 130 when interrupted.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hirace_py.backends.select import BACKENDS
from hirace_py.commands import check_kernel, check_litmus, check_suite
from hirace_py.commands.check_mode import CheckMode, given
from hirace_py.commands.common import HelpFormatter, add_compile_options
from hirace_py.errors import HiraceError, UsageError
from hirace_py.time_limits import WALL_BACKSTOP
from hirace_py.values import ENGINES

MODES = (check_kernel.MODE, check_litmus.MODE, check_suite.MODE)
"""The kinds of target, each with the options (argparse actions) only it takes."""

_owned: dict[str, tuple[CheckMode, argparse.Action]] = {}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check",
        help="check kernels (or a litmus suite) for data races",
        description=__doc__,
        formatter_class=HelpFormatter,
    )
    p.add_argument("target", type=Path, help="a .cu file, a directory with manifest.toml, "
                   "or an Indigo suite directory (with --inputs)")  # fmt: skip
    p.add_argument("--backend", choices=BACKENDS, default="auto",
                   help="where kernels run: auto is CuPy with a usable GPU, else cpu")  # fmt: skip
    p.add_argument("--engine", choices=ENGINES, default="fsm",
                   help="fsm: shadow-word FSM (default); values: LD-style value-based checking "
                   "on the CPU backend; both: run both, report disagreements (docs/engines.md)")
    formats = sorted({f for m in MODES for f in m.formats})
    p.add_argument("--format", choices=formats, default="text",
                   help="; ".join(f"{m.plural}: {', '.join(m.formats)}" for m in MODES))
    p.add_argument("-o", "--output", type=Path, help="write the report here (default: stdout)")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="limit in CPU seconds of each launch on the CPU backend (default: "
                   "$HIRACE_TIMEOUT, else 60); for a suite, of each program's run "
                   f"(default: {check_suite.TIMEOUT:g}); what waits without using CPU is "
                   f"ended at {WALL_BACKSTOP}x that in wall time")  # fmt: skip
    add_compile_options(p)
    for mode in MODES:
        group = p.add_argument_group(f"{mode.plural} ({mode.hint})")
        for action in mode.add_options(group):
            _owned[action.dest] = (mode, action)
    p.set_defaults(func=run)


def mode_of(args: argparse.Namespace) -> CheckMode:
    """The kind of target `args.target` is; HiraceError if it is none."""
    target: Path = args.target
    if args.inputs is not None:
        return check_suite.MODE
    if target.is_dir():
        if not (target / "manifest.toml").is_file():
            raise HiraceError(
                f"{target}: a directory to check needs a manifest.toml "
                "(or --inputs GRAPH.egr... to check it as an Indigo suite)"
            )
        return check_litmus.MODE
    if not target.is_file():
        raise HiraceError(f"{target}: no such file or directory")
    return check_kernel.MODE


def run(args: argparse.Namespace) -> int:
    mode = mode_of(args)
    for owner, action in _owned.values():
        if owner is not mode and given(args, action):
            raise UsageError(f"{action.option_strings[0]} applies to {owner.plural} only "
                             f"({owner.hint})")  # fmt: skip
    if args.format not in mode.formats:
        raise UsageError(f"--format {args.format}: the results of {mode.plural} are "
                         f"{', '.join(mode.formats)}")  # fmt: skip
    return mode.run(args)
