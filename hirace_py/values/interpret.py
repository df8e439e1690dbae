"""The values engine's raw records and counters as races and notices.

Shared by `hirace check --engine values` (hirace_py.values.checker) and the
dumps of whole programs built with `--engine values` (hirace_py.dump), as
hirace_py.interpret is for the FSM engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from hirace_py.instrument.model import Site
from hirace_py.interpret import Dim3, SourceLines, access
from hirace_py.report import Notice, Race
from hirace_py.values import layout
from hirace_py.values.compare import MESSAGES_NOTICE

KINDS = {layout.KIND_WW: "write-write", layout.KIND_RW: "read-write"}


def races(
    records: Sequence[Mapping[str, int]],
    sites: Sequence[Site],
    variable: Callable[[int], tuple[str, str]],
    kernel: str,
    g: Dim3,
    b: Dim3,
    lines: SourceLines,
) -> list[Race]:
    """Conflict records (VRecord fields by name; free slots are skipped) as races
    of the values engine: `first` is the access of the writer (or first writer),
    `second` the reader (or second writer). `variable(id)` is the (space, name)
    of a record's variable id, as in hirace_py.interpret."""
    out = []
    for r in records:
        if not r["key"]:
            continue
        kind = KINDS[r["key"] >> 62]
        site_a = (r["key"] >> 31 & 0x7FFFFFFF) - 1
        site_b = (r["key"] & 0x7FFFFFFF) - 1
        space, name = variable(r["var"])
        out.append(Race(
            kind, space, name, kernel,
            access(sites[site_a] if site_a >= 0 else None, r["tid_a"], r["block_a"], g, b, lines),
            access(sites[site_b] if site_b >= 0 else None, r["tid_b"], r["block_b"], g, b, lines),
            r["count"], r["unit"], True, engine="values",
        ))  # fmt: skip
    return sorted(out, key=lambda r: (r.lines(), r.kind))


def notices(c: dict[str, int]) -> list[Notice]:
    """What the values engine could not check in a launch, from its counters."""
    out = []
    if c["atomic_accesses"]:
        out.append(Notice(
            "values-atomics",
            f"values engine: {c['atomic_intervals']} of {c['intervals']} barrier interval(s) "
            f"used atomics ({c['atomic_accesses']} atomic access(es)); the "
            f"{c['atomic_bytes']} byte(s) accessed atomically act on memory directly and "
            f"were not checked, nor were {c['atomic_plain']} plain access(es) to them",
            c["atomic_intervals"],
        ))  # fmt: skip
    if c["message_conflicts"]:
        out.append(Notice(
            MESSAGES_NOTICE,
            f"values engine: {c['message_conflicts']} conflicting byte(s) between warps or "
            f"blocks that may have passed a message were not reported ({c['releases']} "
            "release(s): an atomic after a fence, or with release order; the other side used "
            "an atomic): the values engine does not model message passing",
            c["message_conflicts"],
        ))  # fmt: skip
    texts = {
        "unmonitored": "access(es) to memory the values engine does not privatize (local "
                       "memory through pointers, or allocations that were not registered)",
        "straddling": "access(es) running past the end of their variable were not checked",
        "report_overflow": "conflict record(s) dropped: the table was full "
                           "(raise report.capacity)",
        "objects_dropped": "__shared__ variable(s) not privatized: too many monitored "
                           "objects; their accesses were not checked",
        "cooperative": "cooperative launch: not checked by the values engine (its blocks run "
                       "at once; the engine privatizes one block at a time)",
        "out_of_bounds": "access(es) just outside an allocation not performed (reads gave 0; "
                         "HIRACE_BOUNDS=continue) and not checked by the values engine",
    }  # fmt: skip
    for key, text in texts.items():
        if c[key]:
            out.append(Notice(f"values-{key.replace('_', '-')}", f"{c[key]} {text}", c[key]))
    return out
