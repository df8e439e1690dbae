"""What `hirace check` can check, and what each kind of target accepts.

`hirace check TARGET` checks one of three things, chosen by the target: a
kernel file, a litmus suite (a directory with manifest.toml), or a labelled
suite of programs (a directory, with --inputs). Each is a `CheckMode` that
declares its own options and report formats, so an option or a format given
to the wrong kind of target is one error that names the kind it belongs to.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass

from hirace_py.errors import UsageError


@dataclass(frozen=True)
class CheckMode:
    """One kind of target of `hirace check`."""

    plural: str
    """What it checks, for messages: "kernel files"."""
    hint: str
    """How a user asks for it: "give --inputs"."""
    formats: tuple[str, ...]
    """The report formats it writes."""
    add_options: Callable[[argparse._ArgumentGroup], list[argparse.Action]]
    """Adds the options only this mode takes to a group; returns them."""
    run: Callable[[argparse.Namespace], int]
    """Checks the target; returns the exit status."""


def given(args: argparse.Namespace, action: argparse.Action) -> bool:
    """Whether the user gave `action`'s option (its value is not the default)."""
    return getattr(args, action.dest) not in (None, False, [])


def limit_each_launch(args: argparse.Namespace) -> None:
    """--timeout as the time limit of every launch on the CPU backend (and the
    values engine's); UsageError unless it is positive."""
    if args.timeout is None:
        return
    if not args.timeout > 0:
        raise UsageError(f"--timeout {args.timeout:g}: must be a positive number of CPU seconds")
    os.environ["HIRACE_TIMEOUT"] = f"{args.timeout:g}"
