"""Render the Murphi model of the FSM (templates/fsm_model.m.j2) for a grid and a table.

The table is rendered into the model from the same flat array the runtime
uses, so the model checks exactly that table; nothing is re-typed by hand.
"""

from __future__ import annotations

import numpy as np

from hirace_py.fsm import FLAT_TRANSITIONS, LOADS, SOUND_ONLY, STATES, Action, Rel, Sync, flat_index
from hirace_py.templating import environment
from hirace_py.trace import Grid

TEMPLATE = "fsm_model.m.j2"
DEFAULT_GRID = Grid(2, 2, 2)
"""The grid of the committed model (murphi/fsm_model.m)."""
DEFAULT_GRIDS = (Grid(2, 1, 2), Grid(1, 2, 2), Grid(2, 2, 1))
"""What `hirace verify` checks by default, in turn: together they put
threads in every relation to one another, with warps of 2 lanes and of 1
lane (1-lane masks), and each finishes in seconds; 2x2x2, all relations on
one grid, does not finish within the default time limit (docs/fsm.md,
"Murphi model")."""
REAL_TABLE_NAME = "the table of hirace_py.fsm"
DEFAULT_MAX_LOADS = 2
"""Atomic loads the model explores per launch (and per grid phase): loads
never race with each other or with plain reads, so unbounded runs of them
reach every who-observed-whom relation between threads (docs/fsm.md,
"Murphi model")."""
MODELLED_ACTIONS = tuple(Action)
"""The actions the model has a rule for: all of them (docs/fsm.md, "Murphi model")."""


def _label(entries: list[tuple[Action, Sync, Rel]]) -> str:
    """Entries as e.g. 'R U S,W; R B *; GA *': per action and sync, the relations."""
    parts = []
    for a in Action:
        syncs = {y: [r for b, z, r in entries if (b, z) == (a, y)] for y in Sync}
        if all(len(rels) == len(Rel) for rels in syncs.values()):
            parts.append(f"{a.name} *")
            continue
        for y, rels in syncs.items():
            if rels:
                names = "*" if len(rels) == len(Rel) else ",".join(r.name for r in rels)
                parts.append(f"{a.name} {y.name} {names}")
    return "; ".join(parts)


def table_rows(table: np.ndarray) -> list[dict[str, object]]:
    """Per state of `table` (flat, as `hirace_py.fsm.flat_index`), its entries grouped
    by next state, as templates/fsm_table.m.j2 renders them. Raises ValueError
    when `table` does not have the real table's size."""
    if table.shape != FLAT_TRANSITIONS.shape:
        raise ValueError(f"table has {table.size} entries, expected {FLAT_TRANSITIONS.size}")
    rows = []
    for s, name in enumerate(STATES):
        groups: dict[int, list[tuple[Action, Sync, Rel]]] = {}
        for a in MODELLED_ACTIONS:
            for y in Sync:
                for r in Rel:
                    target = int(table[flat_index(s, a, y, r)])
                    groups.setdefault(target, []).append((a, y, r))
        rows.append(
            {
                "name": name,
                "groups": [
                    {
                        "target": STATES[target],
                        "indices": [flat_index(0, a, y, r) for a, y, r in entries],
                        "label": _label(entries),
                    }
                    for target, entries in groups.items()
                ],
            }
        )
    return rows


def render(
    grid: Grid = DEFAULT_GRID,
    table: np.ndarray = FLAT_TRANSITIONS,
    table_name: str = REAL_TABLE_NAME,
    max_loads: int = DEFAULT_MAX_LOADS,
    sort_threads: bool = True,
) -> str:
    """The Murphi model for `grid` checking the flat transition `table`.

    `table` is indexed as `hirace_py.fsm.flat_index` and holds state indices
    into `hirace_py.fsm.STATES`; `table_name` only appears in comments.
    `sort_threads` renames warps within blocks and lanes within warps after
    every rule (murphi/README.md, "Symmetry"): far fewer states, but the
    rules of a counterexample then name threads as the renamed state does;
    without it threads keep their names along a trace.
    """
    rows = table_rows(table)
    env = environment()
    actions = [
        {"name": a.name, "const": f"ACT_{a.name}", "value": int(a), "load": a in LOADS}
        for a in MODELLED_ACTIONS
    ]
    inner = len(Action) * len(Sync) * len(Rel)
    sound_only = [{"state": STATES[i // inner], "index": i % inner} for i in sorted(SOUND_ONLY)]
    return env.get_template(TEMPLATE).render(
        grid=grid,
        table_name=table_name,
        states=STATES,
        table=rows,
        actions=actions,
        sound_only=sound_only,
        max_loads=max_loads,
        sort_threads=sort_threads,
    )


if __name__ == "__main__":
    # `python -m hirace_py.murphi.model > murphi/fsm_model.m` regenerates the committed model.
    print(render(), end="")
