"""Read a transition table in the CSV format of ``hirace fsm --format csv``.

The format (docs/semantics.md section 2) is a header ``old,access,sync,rel,new`` and
one row per transition, states by name. A table read here has the states of
`hirace_py.fsm` (same names, same indices), so the model can be rendered
from it exactly as from the real table; only the next states may differ.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from hirace_py.errors import HiraceError
from hirace_py.fsm import FLAT_TRANSITIONS, STATE_INDEX, STATES, Action, Rel, Sync, flat_index

HEADER = ["old", "access", "sync", "rel", "new"]


def _lookup(path: Path, line: int, what: str, value: str, names: dict[str, int]) -> int:
    if value not in names:
        raise HiraceError(
            f"{path}:{line}: unknown {what} {value!r}; expected one of {', '.join(names)}"
        )
    return names[value]


def load_csv(path: Path) -> np.ndarray:
    """The flat table (see `hirace_py.fsm.flat_index`) that the CSV file at `path` holds.

    Every (old, access, sync, rel) must appear exactly once. Raises
    HiraceError naming the file and line on a bad header, a malformed row,
    an unknown name or a duplicate row, and naming the first missing row.
    Blank lines are ignored.
    """
    try:
        text = path.read_text()
    except OSError as exc:
        raise HiraceError(f"{path}: cannot read table: {exc.strerror}") from None
    rows = csv.reader(text.splitlines())
    header = next(rows, None)
    if header != HEADER:
        got = ",".join(header) if header else "an empty file"
        raise HiraceError(f"{path}:1: header must be {','.join(HEADER)}, got {got}")
    actions = {a.name: int(a) for a in Action}
    syncs = {y.name: int(y) for y in Sync}
    rels = {r.name: int(r) for r in Rel}
    table = np.full(FLAT_TRANSITIONS.shape, -1, np.int32)
    first_line = np.zeros(FLAT_TRANSITIONS.shape, np.int32)
    for line, row in enumerate(rows, 2):
        if not row:
            continue
        if len(row) != len(HEADER):
            raise HiraceError(f"{path}:{line}: expected {len(HEADER)} fields, got {len(row)}")
        old, access, sync, rel, new = (field.strip() for field in row)
        index = flat_index(
            _lookup(path, line, "state", old, STATE_INDEX),
            _lookup(path, line, "access", access, actions),
            _lookup(path, line, "sync", sync, syncs),
            _lookup(path, line, "rel", rel, rels),
        )
        target = _lookup(path, line, "state", new, STATE_INDEX)
        if table[index] >= 0:
            raise HiraceError(
                f"{path}:{line}: duplicate row for {old},{access},{sync},{rel} "
                f"(first on line {first_line[index]})"
            )
        table[index] = target
        first_line[index] = line
    missing = np.flatnonzero(table < 0)
    if missing.size:
        s, rest = divmod(int(missing[0]), len(Action) * len(Sync) * len(Rel))
        a, rest = divmod(rest, len(Sync) * len(Rel))
        y, r = divmod(rest, len(Rel))
        raise HiraceError(
            f"{path}: {missing.size} of {table.size} rows missing, the first "
            f"{STATES[s]},{Action(a).name},{Sync(y).name},{Rel(r).name}"
        )
    return table.astype(FLAT_TRANSITIONS.dtype)
