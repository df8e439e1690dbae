"""`hirace verify`: check the FSM table with the Murphi model and Rumur.

Exit status 0 when Rumur explores every reachable state of the model and
both invariants hold (the FSM is in RACE exactly when the history has a
race), 1 when it finds a counterexample, 2 on a tool error.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

from hirace_py import oracle
from hirace_py.errors import ExitCode, HiraceError, ToolFailure
from hirace_py.fsm import FLAT_TRANSITIONS, N_STATES
from hirace_py.murphi import check, counterexample, messages, model, rumur
from hirace_py.murphi.table import load_csv
from hirace_py.trace import BSYNC, Grid, parse

_T = TypeVar("_T")

INVARIANTS = {
    "soundness": "the FSM is in RACE but the history has no race",
    "completeness": "the history has a race but the FSM is not in RACE",
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "verify",
        help="model-check the FSM table with Rumur (Murphi model)",
        description=(
            "Render the Murphi model of the FSM for a grid, check it with Rumur, and "
            "translate any counterexample into a trace for `hirace fsm --trace`."
        ),
    )
    p.add_argument(
        "--grid",
        type=_grid,
        metavar="BxWxL",
        help=(
            "blocks x warps x lanes of the model (default: "
            f"{', '.join(str(g) for g in model.DEFAULT_GRIDS)} in turn; "
            'docs/fsm.md, "Murphi model")'
        ),
    )
    p.add_argument(
        "--table",
        type=Path,
        metavar="FILE.csv",
        help="check this table (CSV of `hirace fsm --format csv`) instead of the real one",
    )
    p.add_argument(
        "--loads",
        type=_loads,
        default=model.DEFAULT_MAX_LOADS,
        metavar="N",
        help=(
            "atomic loads the model explores per launch and grid phase "
            f'(default {model.DEFAULT_MAX_LOADS}; docs/fsm.md, "Murphi model")'
        ),
    )
    p.add_argument(
        "--messages",
        action="store_true",
        help=(
            "check the runtime's message passing instead (fences, release and acquire "
            "atomics on a flag; default grids "
            f"{', '.join(str(g) for g in messages.DEFAULT_GRIDS)}; "
            'docs/fsm.md, "Murphi model of message passing")'
        ),
    )
    p.add_argument(
        "--keep", type=Path, metavar="DIR", help="keep the model, verifier and its output in DIR"
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        metavar="S",
        help="seconds for the whole check (default 600)",
    )
    p.set_defaults(func=run)


def _grid(text: str) -> Grid:
    m = re.fullmatch(r"(\d+)x(\d+)x(\d+)", text)
    if not m:
        raise argparse.ArgumentTypeError(f"{text!r}: expected BLOCKSxWARPSxLANES, e.g. 2x2x2")
    try:
        return Grid(int(m[1]), int(m[2]), int(m[3]))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None


def _loads(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a count of 0 or more")
    return n


def _time_left(args: argparse.Namespace, end: float) -> float:
    left = end - time.monotonic()
    if left <= 0:
        raise ToolFailure(
            f"the check did not finish within --timeout {args.timeout:g} s; "
            "raise --timeout or check a smaller --grid"
        )
    return left


def _in_workdir(keep: Path | None, run: Callable[[Path], _T]) -> _T:
    """`run` in `keep` (made if missing) or in a temporary directory."""
    if keep is not None:
        try:
            keep.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise HiraceError(f"--keep {keep}: {exc.strerror}") from None
        return run(keep)
    with tempfile.TemporaryDirectory(prefix="hirace-verify-") as work:
        return run(Path(work))


def _check(
    args: argparse.Namespace,
    grid: Grid,
    keep: Path | None,
    table: np.ndarray,
    name: str,
    end: float,
) -> check.Checked:
    """Check one grid in `keep` (or a temporary directory) with the time left until `end`."""
    left = _time_left(args, end)

    def in_dir(work: Path) -> check.Checked:
        return check.check_table(grid, table, name, args.loads, work, left, args.timeout)

    return _in_workdir(keep, in_dir)


def _verify_messages(
    args: argparse.Namespace,
    grid: Grid,
    keep: Path | None,
    table: np.ndarray,
    name: str,
    end: float,
) -> int:
    """Check the message-passing model on one grid and print the outcome; the exit code.

    A counterexample is printed in trace syntax with the oracle's verdict
    after each access of @d (the runtime's side has no Python replay).
    """
    print(
        f"model: message passing, grid {grid} (blocks x warps x lanes), up to "
        f"{messages.DEFAULT_MAX_DATA} accesses of @{messages.DATA} and "
        f"{messages.DEFAULT_MAX_FLAG_OPS} atomics on @{messages.FLAG} or fences per launch, "
        f"{name} ({N_STATES} states)",
        flush=True,
    )
    left = _time_left(args, end)
    text = messages.render(grid, table, name)
    outcome = _in_workdir(keep, lambda work: rumur.check(text, work, left, limit=args.timeout))
    _print_explored(outcome)
    if outcome.failed is None:
        print(
            "verdict: verified: after every rule, every race is in RACE, and RACE is a race "
            "unless the runtime is documented as sound only there (docs/fsm.md)"
        )
        return ExitCode.CLEAN
    print(f'verdict: FAILED: invariant "{outcome.failed}": {INVARIANTS[outcome.failed]}')
    text = messages.trace_text(outcome.steps)
    print(f"counterexample: {text}")
    trace = parse(text, grid)
    verdict = oracle.check(trace)
    data = trace.locations.index(messages.DATA) if messages.DATA in trace.locations else -1
    for i in range(len(trace)):
        judged = ""
        if data >= 0 and trace.locs[i] == data and trace.ops[i] < BSYNC:
            judged = "race" if verdict.racy_after(i, data) else "no race"
        print(f"  {i:>3}  {trace.format_event(i):<24}{judged}".rstrip())
    return ExitCode.FINDINGS


def run(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        raise HiraceError(f"--timeout {args.timeout:g}: must be positive")
    table: np.ndarray = FLAT_TRANSITIONS
    name = model.REAL_TABLE_NAME
    if args.table is not None:
        table = load_csv(args.table)
        name = f"the table in {args.table.name}"
    end = time.monotonic() + args.timeout
    defaults = messages.DEFAULT_GRIDS if args.messages else model.DEFAULT_GRIDS
    grids = defaults if args.grid is None else (args.grid,)
    verify = _verify_messages if args.messages else _verify_grid
    for grid in grids:
        keep = args.keep
        if keep is not None and len(grids) > 1:
            keep = keep / str(grid)
        code = verify(args, grid, keep, table, name, end)
        if code != ExitCode.CLEAN:
            return code
    return ExitCode.CLEAN


def _verify_grid(
    args: argparse.Namespace,
    grid: Grid,
    keep: Path | None,
    table: np.ndarray,
    name: str,
    end: float,
) -> int:
    """Check one grid and print the outcome; the exit code."""
    print(
        f"model: grid {grid} (blocks x warps x lanes), up to {args.loads} atomic loads "
        f"per launch, {name} ({N_STATES} states)",
        flush=True,
    )
    checked = _check(args, grid, keep, table, name, end)
    outcome = checked.verdict
    _print_explored(outcome)
    if checked.trace is None:
        print(
            "verdict: verified: after every rule, the FSM is in RACE exactly when "
            "the history has a race (or after a sound-only entry or an atomic load, "
            "docs/fsm.md)"
        )
        return ExitCode.CLEAN
    trace = checked.trace
    print(
        f"trace: the model without renaming warps and lanes, {trace.states} states to the "
        f"failure, {trace.seconds:.1f} s (build {trace.build_seconds:.1f} s)"
    )
    print(f'verdict: FAILED: invariant "{trace.failed}": {INVARIANTS[trace.failed]}')
    cx = counterexample.translate(trace.steps, grid, table)
    print(f"counterexample: {cx.text}")
    if cx.padding is None:
        print(
            "  (no barrier counts make the device's clocks give every sync the model chose; "
            "the trace is the model's rules alone)"
        )
    elif cx.padding:
        print(
            f"  (the first {cx.padding} barriers only set the clocks the way the model's "
            "counterexample compares them across blocks or warps)"
        )
    _print_confirmation(counterexample.confirm(cx, table))
    return ExitCode.FINDINGS


def _print_explored(outcome: rumur.Outcome) -> None:
    """What Rumur explored and how long it took, one line for either model."""
    print(
        f"rumur: {outcome.states} states explored, {outcome.rules_fired} rules fired, "
        f"{outcome.seconds:.1f} s (build {outcome.build_seconds:.1f} s; {outcome.version})"
    )


def _print_confirmation(conf: counterexample.Confirmation) -> None:
    """The per-event replay, and whether Python agrees that the table is wrong there."""
    width = max(len(event) for event, _, _ in conf.rows) + 2
    print(f"  {'#':>3}  {'event':<{width}}{'table state':<12}oracle")
    for i, (event, state, verdict) in enumerate(conf.rows):
        print(f"  {i:>3}  {event:<{width}}{state:<12}{verdict}".rstrip())
    if conf.first_bad < 0:
        print("python check: replay and oracle agree on every event: not confirmed")
        return
    event, state, verdict = conf.rows[conf.first_bad]
    print(
        f"python check: confirmed: after event {conf.first_bad} ({event}) the table "
        f"(hirace_py.replay) is in {state}, the oracle (hirace_py.oracle) says {verdict}"
    )
