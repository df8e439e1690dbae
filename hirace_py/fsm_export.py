"""Render the FSM table as text, CSV, JSON or Graphviz DOT.

CSV is the interchange format of docs/semantics.md section 2: columns exactly
``old,access,sync,rel,new``, one row per transition, states by name.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict

from hirace_py.fsm import MEANINGS, RACE, STATES, TRANSITIONS, Action, Rel, Sync


def rows() -> list[tuple[str, str, str, str, str]]:
    """Every transition as (old, access, sync, rel, new) names, in table order."""
    return [
        (STATES[s], a.name, y.name, r.name, STATES[int(TRANSITIONS[s, a, y, r])])
        for s in range(len(STATES))
        for a in Action
        for y in Sync
        for r in Rel
    ]


def to_csv() -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["old", "access", "sync", "rel", "new"])
    writer.writerows(rows())
    return out.getvalue()


def to_json() -> str:
    doc = {
        "initial": STATES[0],
        "race": STATES[RACE],
        "actions": [a.name for a in Action],
        "syncs": [y.name for y in Sync],
        "rels": [r.name for r in Rel],
        "states": [
            {"index": i, "name": n, "meaning": m}
            for i, (n, m) in enumerate(zip(STATES, MEANINGS, strict=True))
        ],
        "transitions": [
            dict(zip(("old", "access", "sync", "rel", "new"), row, strict=True)) for row in rows()
        ],
    }
    return json.dumps(doc, indent=2) + "\n"


def _label(triples: list[tuple[Action, Sync, Rel]]) -> str:
    """Compact edge label: per action, the sync/rel combinations, '*' for all."""
    parts = []
    by_action: dict[Action, list[tuple[Sync, Rel]]] = defaultdict(list)
    for a, y, r in triples:
        by_action[a].append((y, r))
    all_pairs = len(Sync) * len(Rel)
    for a, pairs in by_action.items():
        if len(pairs) == all_pairs:
            parts.append(f"{a.name}")
            continue
        by_sync: dict[Sync, list[Rel]] = defaultdict(list)
        for y, r in pairs:
            by_sync[y].append(r)
        combos = [
            f"{y.name}*" if len(rs) == len(Rel) else f"{y.name}({''.join(r.name for r in rs)})"
            for y, rs in by_sync.items()
        ]
        parts.append(f"{a.name}:{','.join(combos)}")
    return " ".join(parts)


_CLUSTERS = {
    "R": "history: reads and atomic loads only",
    "L": "history: device-scope atomic loads only",
    "G": "history: device-scope atomics only",
    "X": "history: anything else",
    "MB": "several blocks",
}


def to_dot(race_edges: bool = False) -> str:
    """State diagram: one edge per (old, new) pair, labelled with its triggers.

    Labels read ACTION:SYNC(RELS), e.g. ``R:U(W),B*`` is a read with sync U
    and relation W, or with sync B and any relation; an action alone means any
    sync and relation. Self-loops are left out. Edges into RACE are drawn
    (dashed) only with `race_edges`: every state but INIT and RACE has them,
    and they make the diagram unreadable; the CSV holds every transition.
    States are clustered by what the whole history holds.
    """
    edges: dict[tuple[int, int], list[tuple[Action, Sync, Rel]]] = defaultdict(list)
    for s in range(len(STATES)):
        for a in Action:
            for y in Sync:
                for r in Rel:
                    t = int(TRANSITIONS[s, a, y, r])
                    if t != s and (race_edges or t != RACE):
                        edges[(s, t)].append((a, y, r))
    lines = [
        "digraph hirace_fsm {",
        "  rankdir=LR; newrank=true; nodesep=0.3; ranksep=0.9;",
        '  node [shape=box, style=rounded, fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=8];',
        f'  "{STATES[0]}" [shape=doublecircle];',
        f'  "{STATES[RACE]}" [shape=octagon, style=filled, fillcolor="#f4cccc"];',
    ]
    for key, title in _CLUSTERS.items():
        members = [n for n in STATES[2:] if n.split("_")[0] == key]
        lines.append(f'  subgraph cluster_{key} {{ label="{title}"; color="#999999";')
        lines.extend(f'    "{n}";' for n in members)
        lines.append("  }")
    if not race_edges:
        lines.append(
            '  label="Edges into RACE are omitted (every state but INIT has them): '
            'see hirace fsm --format csv";'
        )
    for (s, t), triples in edges.items():
        style = ', style=dashed, color="#cc0000"' if t == RACE else ""
        lines.append(f'  "{STATES[s]}" -> "{STATES[t]}" [label="{_label(triples)}"{style}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_text(state: int | None = None) -> str:
    """Human-readable table: per state, its meaning and a grid of next states.

    Grid rows are action/sync, columns the relation to the last accessor.
    """
    states = range(len(STATES)) if state is None else [state]
    width = max(len(n) for n in STATES) + 1
    out = [
        f"hirace FSM: {len(STATES)} states, {len(Action)} actions x {len(Sync)} syncs x "
        f"{len(Rel)} relations = {TRANSITIONS.size} transitions",
        "",
    ]
    for s in states:
        out.append(f"{STATES[s]} ({s}): {MEANINGS[s]}")
        out.append("  " + " " * 7 + "".join(f"rel {r.name}".ljust(width) for r in Rel))
        for a in Action:
            for y in Sync:
                cells = "".join(STATES[int(TRANSITIONS[s, a, y, r])].ljust(width) for r in Rel)
                out.append(f"  {a.name:>2}/{y.name}   {cells}")
        out.append("")
    return "\n".join(out)


def to_markdown() -> str:
    """The state table for docs/fsm.md: name, index, meaning."""
    lines = ["| state | index | meaning |", "| --- | --- | --- |"]
    lines += [
        f"| `{n}` | {i} | {m} |" for i, (n, m) in enumerate(zip(STATES, MEANINGS, strict=True))
    ]
    return "\n".join(lines) + "\n"
