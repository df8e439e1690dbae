"""Raw device records to races and notices: the one interpreter of what the runtime wrote.

Single-kernel checks (`hirace_py.checker`) and whole programs (`hirace_py.dump`,
from the dump a program writes at exit) both hand this module the race
records and counters the device wrote, decoded as `RawRace`s and a counter
dict (layouts in hirace_py.instrument.state), and get the same `Race`s and
`Notice`s back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from hirace_py import oracle
from hirace_py.fsm import Action
from hirace_py.instrument.model import Site
from hirace_py.report import Access, BoundsFinding, Notice, Race, race_kind

Dim3 = tuple[int, int, int]


@dataclass(frozen=True)
class RawRace:
    """One record of the device report table, decoded."""

    partner_site: int | None
    site: int
    count: int
    var: int
    unit: int
    tid: int
    block: int
    prev_tid: int
    prev_block: int
    prev_state: int


def decode_record(fields: Mapping[str, int], single_site: bool) -> RawRace:
    """A device RaceRecord (fields of hirace_py.instrument.state.RECORD_FIELDS) decoded.

    Flag bit 0 says the shadow word had no site bits; a field of no bits still
    names the one site of a one-site module."""
    key = int(fields["key"])
    unknown = int(fields["flags"]) & 1 and not single_site
    return RawRace(
        partner_site=None if unknown else (key >> 32) - 1,
        site=(key & 0xFFFFFFFF) - 1,
        count=int(fields["count"]), var=int(fields["var"]), unit=int(fields["unit"]),
        tid=int(fields["tid"]), block=int(fields["block"]), prev_tid=int(fields["prev_tid"]),
        prev_block=int(fields["prev_block"]), prev_state=int(fields["prev_state"]),
    )  # fmt: skip


class SourceLines:
    """Lines of source files by path, read once; '' where a file or line is missing."""

    def __init__(self, known: dict[str, list[str]] | None = None) -> None:
        self.files: dict[str, list[str]] = dict(known or {})

    def line(self, site: Site | None) -> str:
        return "" if site is None else self.line_at(site.file, site.line)

    def line_at(self, file: str, line: int) -> str:
        if file not in self.files:
            try:
                self.files[file] = Path(file).read_text(errors="replace").splitlines()
            except OSError:
                self.files[file] = []
        lines = self.files[file]
        return lines[line - 1] if 0 < line <= len(lines) else ""


def coords(linear: int, dims: Dim3) -> Dim3:
    """(x, y, z) of a linear thread or block index in a block or grid of `dims`."""
    return (linear % dims[0], linear // dims[0] % dims[1], linear // (dims[0] * dims[1]))


def access(site: Site | None, tid: int, block: int, g: Dim3, b: Dim3,
           lines: SourceLines) -> Access:  # fmt: skip
    return Access(site, coords(tid, b), coords(block, g), lines.line(site))


def races(
    raws: Sequence[RawRace],
    sites: Sequence[Site],
    variable: Callable[[int], tuple[str, str]],
    kernel: str,
    g: Dim3,
    b: Dim3,
    lines: SourceLines,
) -> list[Race]:
    """Merge device records into races keyed by the unordered pair of sites, kind and
    variable. `variable(id)` is the (space, name) of a record's variable id."""
    merged: dict[tuple, Race] = {}
    for raw in raws:
        second = sites[raw.site]
        first = sites[raw.partner_site] if raw.partner_site is not None else None
        space, name = variable(raw.var)
        exact = (
            first is not None
            and oracle.conflicts(
                Action[first.action], Action[second.action], raw.prev_block == raw.block
            )
            and (raw.prev_tid, raw.prev_block) != (raw.tid, raw.block)
        )
        # Without the exact partner, a plain write is the partner every kind of
        # access conflicts with; `exact` tells the reader which case this is.
        kind = race_kind(first.action if exact and first else "W", second.action)
        pair = tuple(sorted((first.id if first else -1, second.id)))
        key = (pair, kind, space, name)
        if key in merged:
            merged[key] = replace(merged[key], count=merged[key].count + raw.count)
            continue
        merged[key] = Race(
            kind, space, name, kernel,
            access(first, raw.prev_tid, raw.prev_block, g, b, lines),
            access(second, raw.tid, raw.block, g, b, lines),
            raw.count, raw.unit, exact,
        )  # fmt: skip
    return sorted(merged.values(), key=lambda r: (r.lines(), r.kind))


def bounds(
    records: Sequence[Mapping[str, int]],
    total: int,
    sites: Sequence[Site],
    variable: Callable[[int], tuple[str, str, int]],
    kernel: str,
    g: Dim3,
    b: Dim3,
    lines: SourceLines,
    performed: bool,
) -> list[BoundsFinding]:
    """Out-of-bounds records (hirace_py.instrument.state.BOUNDS_FIELDS) grouped by site
    and variable: the first of each, and how many. `total` accesses were counted and
    the first len(records) kept: the rest count with the last record's group.
    `variable(id)` is the (space, name, bytes) of a record's variable id."""
    found: dict[tuple[int, str], BoundsFinding] = {}
    for i, rec in enumerate(records):
        _, name, size = variable(int(rec["var"]))
        site = sites[rec["site"]] if rec["site"] < len(sites) else None
        key = (int(rec["site"]), name)
        extra = total - len(records) if i + 1 == len(records) else 0
        if key in found:
            old = found[key]
            found[key] = replace(old, count=old.count + 1 + extra)
            continue
        offset = int(rec["offset"])
        offset = offset - (1 << 64) if offset >= 1 << 63 else offset
        found[key] = BoundsFinding(kernel, name, size,
                                   access(site, int(rec["tid"]), int(rec["block"]), g, b, lines),
                                   offset, 1 + extra, performed)  # fmt: skip
    return list(found.values())


NOTICE_TEXTS = {
    "unmonitored": "access(es) to memory hirace does not monitor (allocations it did not "
                   "see made, such as device-side malloc or memory of other libraries)",
    "local": "access(es) through pointers or references to the accessing thread's own "
             "local memory: private to the thread, they cannot race and are not checked",
    "unchecked_members": "call(s) in templates of a member function of a class hirace did "
                         "not instrument (system or other uninstrumented code): the memory "
                         "it accesses is not tracked",
    "narrow": "access(es) narrower than their variable's shadow unit: sub-unit "
              "neighbours are not told apart",
    "partial_syncwarp": "__syncwarp or group sync call(s) with a partial mask were not "
                        "counted as barriers; accesses they order may be reported as races",
    "fences": "__threadfence call(s): message passing through fences and atomic flags "
              "is modelled only for device-scope fences and atomics on the CPU backend, "
              "and there only in part (docs/semantics.md 1.6); data it orders may be "
              "reported as races",
    "ordered_atomics": "atomic(s) with acquire or release order: message passing through "
                       "them is modelled only for device-scope atomics on the CPU backend, "
                       "and there only in part; data they order may be reported as races",
    "release_overflow": "release point(s) not published (a thread's release count or the "
                        "launch's release table was full): data they order is reported "
                        "as racing",
    "acquire_overflow": "acquired release(s) dropped (the acquired table was full): data "
                        "they order is reported as racing",
    "grid_syncs": "grid-group sync(s) were taken as block barriers; accesses of "
                  "different blocks they order may be reported as races",
    "report_overflow": "race record(s) dropped: the report table was full "
                       "(raise report.capacity)",
    "shared_table_full": "__shared__ variable registration(s) dropped: too many "
                         "variables for one thread; their accesses count as unmonitored",
    "shared_frame_full": "__shared__ variable registration(s) dropped: a template-dependent "
                         "size past the frame hirace reserves (48 KiB); their accesses "
                         "count as unmonitored",
    "skipped_blocks": "access(es) by blocks outside monitor.blocks were not checked",
}  # fmt: skip
"""What each counter of hirace_py.instrument.state.COUNTER_FIELDS that means
"not checked" says, after its count."""


def notices(counters: dict[str, int], max_bc: int, max_wc: int,
            site_bits: int, n_sites: int, sites_wanted: bool) -> list[Notice]:  # fmt: skip
    """Everything a tracked launch could not check, from its device counters and layout."""
    c, out = counters, []
    if c.get("clock_overflow_threads"):
        out.append(Notice(
            "clock-overflow",
            f"{c['clock_overflow_threads']} thread(s) passed more than {max_bc} block "
            f"barriers or {max_wc} warp barriers (the shadow word's clock fields); "
            f"{c['untracked_clock']} of their later accesses were not checked",
            c["untracked_clock"],
        ))  # fmt: skip
    for key, text in NOTICE_TEXTS.items():
        if c.get(key):
            out.append(Notice(key.replace("_", "-"), f"{c[key]} {text}", c[key]))
    # A site field of no bits still names the one site of a one-site module.
    if site_bits == 0 and sites_wanted and n_sites > 1:
        out.append(Notice(
            "no-sites",
            "the grid is too large to record the earlier access's site in the shadow "
            "word; reports name its thread only",
        ))  # fmt: skip
    return out


def not_tracked(why: str) -> Notice:
    return Notice("not-tracked", f"launch not tracked: {why}")
