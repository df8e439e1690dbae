"""Check a transition table with the Murphi model: the verdict, and a trace when it fails.

The verdict comes from the model rendered with `sort_threads`, which renames
warps within blocks and lanes within warps after every rule
(murphi/README.md, "Symmetry"): far fewer states, but a rule of its error
trace names threads as the renamed state before it does, not as the rules
before it did. So when that model fails, the model without the renaming is
checked too, for the trace: the search is breadth-first, and a renaming maps
a shortest failing run to a failing run of the same length, so it stops at
that depth, with every thread named as at the launch. That search is short,
so its verifier is built without optimisation (a few times quicker to build).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hirace_py.errors import ToolFailure
from hirace_py.murphi import model, rumur
from hirace_py.trace import Grid

TRACE_DIR = "trace"
"""Subdirectory of the work directory for the model checked for the trace."""


@dataclass(frozen=True)
class Checked:
    """`verdict`: the run of the model with renaming (states, rules, time,
    which invariant failed); `trace`: the run without it when that failed,
    whose `steps` are the counterexample (None when nothing failed)."""

    verdict: rumur.Outcome
    trace: rumur.Outcome | None

    @property
    def failed(self) -> str | None:
        return None if self.trace is None else self.trace.failed

    @property
    def steps(self) -> tuple[rumur.Step, ...]:
        return () if self.trace is None else self.trace.steps


def check_table(
    grid: Grid,
    table: np.ndarray,
    table_name: str,
    max_loads: int,
    workdir: Path,
    timeout: float,
    limit: float | None = None,
) -> Checked:
    """Check `table` on `grid` with up to `max_loads` atomic loads, within `timeout` seconds.

    The models, verifiers and outputs go to `workdir` (and its `trace`
    subdirectory for the second run); `limit` as in `rumur.check`. Raises
    ToolFailure as `rumur.check` does, and when the model without renaming
    does not fail at the same depth as the renamed one (a bug of the
    renaming, never a verdict).
    """
    started = time.monotonic()
    text = model.render(grid, table, table_name, max_loads)
    verdict = rumur.check(text, workdir, timeout, limit=limit)
    if verdict.failed is None:
        return Checked(verdict, None)
    plain = model.render(grid, table, table_name, max_loads, sort_threads=False)
    (workdir / TRACE_DIR).mkdir(exist_ok=True)
    left = max(timeout - (time.monotonic() - started), 0.001)
    trace = rumur.check(plain, workdir / TRACE_DIR, left, optimize=False, limit=limit)
    if trace.failed is None or len(trace.steps) != len(verdict.steps):
        found = "holds" if trace.failed is None else f"fails after {len(trace.steps)} steps"
        raise ToolFailure(
            f'the model failed invariant "{verdict.failed}" after {len(verdict.steps)} steps '
            f"with warps and lanes renamed, but {found} without the renaming: "
            "the renaming (sort_threads) is wrong"
        )
    return Checked(verdict, trace)
