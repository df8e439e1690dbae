"""Render the Murphi model of message passing (templates/fsm_messages.m.j2).

The model checks the CPU runtime's message check (docs/fsm.md, "Message
passing in the runtime") on top of a transition table against
happens-before with release/acquire edges: a data location @d of plain reads
and writes, a flag @f of device-scope atomics with every memory order, and
device-scope fences, block, warp and grid barriers. Its rules are named in
the trace syntax of ``hirace fsm --trace``; `trace_text` adds the locations.
"""

from __future__ import annotations

import numpy as np

from hirace_py import fsm
from hirace_py.fsm import FLAT_TRANSITIONS, STATES, Action
from hirace_py.murphi.model import REAL_TABLE_NAME, table_rows
from hirace_py.murphi.rumur import Step
from hirace_py.templating import environment
from hirace_py.trace import Grid

TEMPLATE = "fsm_messages.m.j2"
DEFAULT_GRIDS = (Grid(3, 1, 1), Grid(1, 3, 1), Grid(1, 1, 3))
"""The grids `hirace verify --messages` checks by default: three threads
(a last accessor of @d, a releaser and an acquirer, all distinct) in each
relation, other blocks, other warps of a block, lanes of a warp; grids of
four threads with mixed relations do not finish within the default limit
(docs/fsm.md, "Murphi model of message passing")."""
DATA, FLAG = "d", "f"
"""The names of the model's two locations in a trace."""
FLAG_RULES = (
    ("GA", True, False, False),
    ("GA.acq", True, True, False),
    ("GA.rel", True, False, True),
    ("GA.ar", True, True, True),
    ("GL", False, False, False),
    ("GL.acq", False, True, False),
)
"""The atomics on @f: (rule, read-modify-write, acquire order, release order)."""
DEFAULT_MAX_FLAG_OPS = 3
"""Atomics on @f and device fences the model explores per launch: a
message needs three (fence, atomic, atomic; or a release atomic, an atomic
and the acquirer's fence), or two (a release atomic and an acquire)."""
DEFAULT_MAX_DATA = 3
"""Accesses of @d the model explores per launch: a write, the access a
message orders after it, and one more (a second reader, or a later write)."""
MUTANTS = (
    "acquire_orders_nothing",
    "release_orders_everything",
    "cross_block_lost",
    "release_ignores_warp_barriers",
    "acquire_ignores_warp_barriers",
    "read_unasked",
)
"""Faults of the runtime's message check the model can be rendered with, for
tests that the invariants catch them: an acquisition that never holds a
release; a release point that covers every access; an acquisition that
ignores releases of other blocks; and the runtime's two false alarms the
model found (docs/fsm.md): a release that does not cover an access its
releaser's warp barrier ordered before it, an acquisition that a warp
barrier does not share with the holder's warp, and a read the table counts
as one more reader that does not ask the message check (except from the
reads-only state)."""


def render(
    grid: Grid,
    table: np.ndarray = FLAT_TRANSITIONS,
    table_name: str = REAL_TABLE_NAME,
    mutant: str | None = None,
    max_flag_ops: int = DEFAULT_MAX_FLAG_OPS,
    max_data: int = DEFAULT_MAX_DATA,
) -> str:
    """The message-passing model for `grid` over the flat transition `table`.

    `mutant` (one of MUTANTS, or None for the runtime as it is) changes the
    model's device side only; `max_flag_ops` bounds the atomics on @f and
    device fences per launch, `max_data` the accesses of @d. Raises
    ValueError for an unknown mutant or a table of the wrong size.
    """
    if mutant is not None and mutant not in MUTANTS:
        raise ValueError(f"unknown mutant {mutant!r}; expected one of {', '.join(MUTANTS)}")
    actions = [{"name": a.name, "value": int(a)} for a in Action]
    flag_rules = [
        {"name": name, "rmw": _bool(rmw), "acq": _bool(acq), "rel": _bool(rel)}
        for name, rmw, acq, rel in FLAG_RULES
    ]
    return (
        environment()
        .get_template(TEMPLATE)
        .render(
            grid=grid,
            table_name=table_name,
            states=STATES,
            table=table_rows(table),
            actions=actions,
            flag_rules=flag_rules,
            ordered_before_last=[STATES[s] for s in sorted(fsm.ORDERED_BEFORE_LAST)],
            message_readers=[STATES[s] for s in sorted(fsm.MESSAGE_READERS)],
            message_state=STATES[fsm.MESSAGE_STATE],
            # The reads-only state, the one the read_unasked mutant asks from.
            reads_state=STATES[fsm.step(fsm.INIT, Action.R, fsm.Sync.U, fsm.Rel.S)],
            mutant=mutant,
            max_flag_ops=max_flag_ops,
            max_data=max_data,
        )
    )


def _bool(value: bool) -> str:
    return "true" if value else "false"


def trace_text(steps: tuple[Step, ...]) -> str:
    """The events of a counterexample after its last launch, in trace syntax.

    Accesses name @d, atomics @f; fences and barriers name no location.
    Unlike the one-location model's counterexamples (murphi/counterexample.py)
    no barriers are prepended: the oracle's verdict, which this trace is
    judged by, does not depend on the syncs the model chose for the device.
    """
    starts = [i for i, step in enumerate(steps) if step.rule.startswith(("launch", "kernel end"))]
    if starts:
        steps = steps[starts[-1] + 1 :]
    events = []
    for step in steps:
        name = step.rule.split(" ", 1)[0]
        if name in ("R", "W"):
            events.append(f"{step.rule} @{DATA}")
        elif name in {rule for rule, *_ in FLAG_RULES}:
            events.append(f"{step.rule} @{FLAG}")
        else:
            events.append(step.rule)
    return "; ".join(events)
