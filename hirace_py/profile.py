"""The transfer profile: data movement and allocations that do nothing useful.

From a program's host record (hirace_py.host_events) this finds four
patterns, each attributed to the call sites involved, with counts, bytes
and an estimated time saving (docs/profile.md):

- **duplicate-transfer**: a host-to-device copy of the same bytes (equal
  content hash) to the same device place (allocation, offset, size) as the
  last copy there, with nothing in between that may have written that place;
- **round-trip**: a device-to-host copy that brings back, unchanged (equal
  hash), bytes the last host-to-device copy into that device place took from
  that same host address;
- **repeated-allocation**: allocations of one size at one call site, each
  freed before the next one is made (a loop that could allocate once);
- **unused-data**: a device allocation no kernel may read, or a host-to-device
  copy whose bytes no kernel may read before they are overwritten, freed or
  the program ends.

Whether a kernel *may read or write* an allocation: when kernels are
instrumented, from its footprint (the shadow units it read or wrote); when
they are not (`hirace profile`'s default), from its pointer arguments: a
launch may read every allocation one of its pointer arguments points into,
and may write those whose parameter is not a pointer to const; an *opaque*
launch (its kernel takes a struct holding pointers, a pointer to a pointer
or to void: Launch.opaque) may read and write every live allocation. Memory
a kernel reaches otherwise (pointers in __device__ variables set by the
host) is invisible then, which the report says.

Estimated savings use measured times where the backend has them (synchronous
calls on a GPU, whose duration is the transfer's or the allocation's), and a
bandwidth model otherwise (`MODEL`).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from hirace_py.host_events import (
    HOST_KINDS,
    CallSite,
    Copy,
    HostEvent,
    HostRecord,
    Launch,
)

PATTERNS = ("duplicate-transfer", "round-trip", "repeated-allocation", "unused-data")
PATTERN_TEXT = {
    "duplicate-transfer": "the same bytes copied to the same device place again",
    "round-trip": "bytes copied back, unchanged, to the host address they came from",
    "repeated-allocation": "allocation and free of the same size repeated at one call site",
    "unused-data": "an allocation or a copy no kernel reads",
}


@dataclass(frozen=True)
class Model:
    """The documented cost model for calls whose time was not measured: a copy
    takes `latency + bytes / bandwidth` by direction; an allocation and a free
    take fixed times. Figures of a PCIe 4.0 x16 GPU (docs/profile.md)."""

    latency_s: float = 10e-6
    host_device_bps: float = 25e9
    device_device_bps: float = 1000e9
    host_host_bps: float = 10e9
    alloc_s: float = 50e-6
    free_s: float = 50e-6

    def copy_seconds(self, direction: str, nbytes: int) -> float:
        rates = {"DeviceToDevice": self.device_device_bps, "HostToHost": self.host_host_bps}
        bandwidth = rates.get(direction, self.host_device_bps)
        return self.latency_s + nbytes / bandwidth


MODEL = Model()


@dataclass(frozen=True)
class ProfileFinding:
    """One pattern at one place: the call site to change (`site`), the other
    calls involved (`related`: (site, role)), how many calls are wasted, how
    many bytes they move or allocate, and the time removing them would save
    (`measured`: from measured call times, else from the model)."""

    pattern: str
    variable: str
    site: CallSite | None
    message: str
    count: int
    bytes: int
    seconds: float
    measured: bool
    related: tuple[tuple[CallSite | None, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        def site(s: CallSite | None) -> dict[str, Any] | None:
            if s is None:
                return None
            return {"file": s.file, "line": s.line, "column": s.column, "function": s.function}

        return {"pattern": self.pattern, "variable": self.variable, "site": site(self.site),
                "message": self.message, "count": self.count, "bytes": self.bytes,
                "seconds": self.seconds, "measured": self.measured,
                "related": [{"site": site(s), "role": r} for s, r in self.related]}  # fmt: skip


@dataclass
class Profile:
    """The transfer profile of one program run."""

    findings: list[ProfileFinding] = field(default_factory=list)
    transfers: int = 0
    transfer_bytes: int = 0
    unhashed: int = 0
    """Transfers whose bytes could not be hashed in place (not compared)."""
    kernels_instrumented: bool = False
    uninstrumented_launches: int = 0
    opaque_launches: int = 0
    """Uninstrumented launches taken to read and write every live allocation
    (host_events.Launch.opaque)."""

    def summary(self) -> dict[str, dict[str, Any]]:
        out = {}
        for pattern in PATTERNS:
            found = [f for f in self.findings if f.pattern == pattern]
            out[pattern] = {"findings": len(found), "calls": sum(f.count for f in found),
                            "bytes": sum(f.bytes for f in found),
                            "seconds": sum(f.seconds for f in found)}  # fmt: skip
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "kernels_instrumented": self.kernels_instrumented,
            "transfers": self.transfers,
            "transfer_bytes": self.transfer_bytes,
            "unhashed": self.unhashed,
            "summary": self.summary(),
            "findings": [f.to_json() for f in self.findings],
        }


def _seconds(event: HostEvent, measured: bool, model_seconds: float) -> float:
    return event.ns * 1e-9 if measured else model_seconds


@dataclass
class _Group:
    """Wasted calls of one pattern at one site, merged into one finding."""

    pattern: str
    variable: str
    site: CallSite | None
    what: str
    count: int = 0
    bytes: int = 0
    seconds: float = 0.0
    related: dict[tuple[CallSite | None, str], None] = field(default_factory=dict)


class _Analysis:
    """One pass over the events in order (see the module's description)."""

    def __init__(self, record: HostRecord, backend: str, model: Model) -> None:
        self.record = record
        self.allocs = record.allocations
        self.model = model
        self.gpu = backend == "cuda"
        self.groups: dict[tuple[str, CallSite | None, str], _Group] = {}
        # The last host-to-device copy into each exact device place, while
        # nothing else may have written it: (alloc, offset, bytes) -> Copy.
        self.last_in: dict[tuple[int, int, int], Copy] = {}
        # The last host-to-device copy into each exact device place, whatever
        # happened since (a copy back with its hash brings back the same bytes).
        self.origin: dict[tuple[int, int, int], Copy] = {}
        # Host-to-device copies whose bytes no kernel may have read yet.
        self.unread: list[Copy] = []
        self.read_allocs: set[int] = set()
        self.live: set[int] = set()  # allocations made and not freed yet

    def group(self, pattern: str, site: CallSite | None, variable: str, what: str) -> _Group:
        key = (pattern, site, variable)
        if key not in self.groups:
            self.groups[key] = _Group(pattern, variable, site, what)
        return self.groups[key]

    def name(self, alloc: int | None) -> str:
        return self.allocs[alloc].name if alloc is not None else "?"

    def copy_cost(self, c: Copy) -> tuple[float, bool]:
        measured = self.gpu and c.stream is None
        model = self.model.copy_seconds(c.direction(self.allocs), c.bytes)
        return _seconds(c, measured, model), measured

    def device(self, alloc: int | None) -> bool:
        return alloc is not None and self.allocs[alloc].kind not in HOST_KINDS

    # -- what may touch a device place -------------------------------------

    def written(self, alloc: int, lo: int, hi: int, keep: Copy | None = None) -> None:
        """Bytes [lo, hi) of `alloc` may have changed: copies into overlapping places
        are no longer what the device holds."""
        for key in [k for k in self.last_in if k[0] == alloc and k[1] < hi and lo < k[1] + k[2]]:
            if self.last_in[key] is not keep:
                del self.last_in[key]

    def overwritten(self, alloc: int, lo: int, hi: int) -> None:
        """Bytes [lo, hi) were replaced: unread copies they cover entirely are unused."""
        for c in [c for c in self.unread if c.dst.alloc == alloc
                  and lo <= c.dst.offset and c.dst.offset + c.bytes <= hi]:  # fmt: skip
            self.unused_copy(c)

    def read(self, alloc: int, lo: int, hi: int) -> None:
        self.read_allocs.add(alloc)
        self.unread = [c for c in self.unread
                       if not (c.dst.alloc == alloc and c.dst.offset < hi
                               and lo < c.dst.offset + c.bytes)]  # fmt: skip

    def launch(self, e: Launch) -> None:
        if e.footprint is not None:
            for alloc, first, end, kind in e.footprint:
                unit = 1 << self.allocs[alloc].gran_log2
                self.read(alloc, first * unit, end * unit)
                if kind != "R":  # written, or may have been (FOOTPRINT_COARSE)
                    self.written(alloc, first * unit, end * unit)
            return
        if e.opaque:  # it may read and write every live allocation
            self.read_allocs.update(self.live)
            self.unread = []
            self.last_in.clear()
            return
        for arg in e.args:
            if arg.alloc is None:
                continue
            size = self.allocs[arg.alloc].bytes
            self.read(arg.alloc, 0, size)
            if not arg.readonly:
                self.written(arg.alloc, 0, size)

    # -- patterns --------------------------------------------------------------

    def copy(self, c: Copy) -> None:
        direction = c.direction(self.allocs)
        if direction.endswith("ToDevice") and self.device(c.dst.alloc):
            self.record_transfer(c)
            assert c.dst.alloc is not None
            key = (c.dst.alloc, c.dst.offset, c.bytes)
            before = self.last_in.get(key)
            cost, measured = self.copy_cost(c)
            if before is not None and c.hash is not None and before.hash == c.hash and \
                    direction == "HostToDevice":  # fmt: skip
                g = self.group("duplicate-transfer", c.site, self.name(c.dst.alloc),
                               "copy of the same bytes to the same place")  # fmt: skip
                g.count += 1
                g.bytes += c.bytes
                g.seconds += cost
                g.related[(before.site, "earlier copy of the same bytes")] = None
                self.measured |= measured
            self.overwritten(c.dst.alloc, c.dst.offset, c.dst.offset + c.bytes)
            self.written(c.dst.alloc, c.dst.offset, c.dst.offset + c.bytes)
            if direction == "HostToDevice":
                self.last_in[key] = c
                self.origin[key] = c
                self.unread.append(c)
            else:
                self.last_in.pop(key, None)
        if direction.startswith("DeviceTo") and self.device(c.src.alloc):
            assert c.src.alloc is not None
            self.record_transfer(c)
            before = self.origin.get((c.src.alloc, c.src.offset, c.bytes))
            if before is not None and direction == "DeviceToHost" and c.hash is not None and \
                    before.hash == c.hash and before.src.ptr == c.dst.ptr:  # fmt: skip
                cost, measured = self.copy_cost(c)
                g = self.group("round-trip", c.site, self.name(c.src.alloc),
                               "copy back of unchanged bytes")  # fmt: skip
                g.count += 1
                g.bytes += c.bytes
                g.seconds += cost
                g.related[(before.site, "copy that brought them to the device")] = None
                self.measured |= measured
            # The host side read these bytes: a copy out is not a kernel, but the
            # data was not moved for nothing.
            self.unread = [u for u in self.unread if not (
                u.dst.alloc == c.src.alloc and u.dst.offset < c.src.offset + c.bytes
                and c.src.offset < u.dst.offset + u.bytes)]  # fmt: skip

    def record_transfer(self, c: Copy) -> None:
        self.transfers += 1
        self.transfer_bytes += c.bytes
        if c.hash is None and not c.hash_unused:
            self.unhashed += 1

    def unused_copy(self, c: Copy) -> None:
        self.unread.remove(c)
        if c.dst.alloc not in self.read_allocs_final:
            return  # the whole allocation is unused: reported as such
        cost, measured = self.copy_cost(c)
        g = self.group("unused-data", c.site, self.name(c.dst.alloc),
                       "copy whose bytes no kernel reads")  # fmt: skip
        g.count += 1
        g.bytes += c.bytes
        g.seconds += cost
        self.measured |= measured

    def run(self) -> Profile:
        self.transfers = self.transfer_bytes = self.unhashed = 0
        self.measured = False
        self.read_allocs_final = self._allocations_read()
        live: dict[int, HostEvent] = {}
        freed_at: dict[int, HostEvent] = {}
        for e in self.record.events:
            _track_live(e, self.live)
            if isinstance(e, Copy):
                self.copy(e)
            elif isinstance(e, Launch):
                self.launch(e)
            elif e.op in ("memset", "memset2d") and self.device(e["dst"][1]):
                alloc, offset = e["dst"][1], e["dst"][2]
                self.overwritten(alloc, offset, offset + e["bytes"])
                self.written(alloc, offset, offset + e["bytes"])
            elif e.op == "alloc" and e.status == 0 and e.get("alloc") is not None:
                live[e["alloc"]] = e
            elif e.op == "free" and e["ptr"][1] is not None and e["ptr"][2] == 0:
                alloc = e["ptr"][1]
                size = self.allocs[alloc].bytes
                self.overwritten(alloc, 0, size)
                self.written(alloc, 0, size)
                if alloc in live:
                    freed_at[alloc] = e
        for c in list(self.unread):
            self.unused_copy(c)
        self.repeated_allocations(live, freed_at)
        self.unused_allocations(live, freed_at)
        findings = [ProfileFinding(g.pattern, g.variable, g.site, self.message(g), g.count,
                                   g.bytes, g.seconds, self.measured, tuple(g.related))
                    for g in self.groups.values()]  # fmt: skip
        findings.sort(key=lambda f: (PATTERNS.index(f.pattern), -f.seconds,
                                     f.site.where() if f.site else ""))  # fmt: skip
        uninstrumented = [e for e in self.record.launches if e.footprint is None]
        return Profile(findings, self.transfers, self.transfer_bytes, self.unhashed,
                       self.record.kernels_instrumented, len(uninstrumented),
                       sum(1 for e in uninstrumented if e.opaque))  # fmt: skip

    def _allocations_read(self) -> set[int]:
        """Allocations some kernel may read, over the whole run."""
        out: set[int] = set()
        live: set[int] = set()
        for e in self.record.events:
            _track_live(e, live)
            if not isinstance(e, Launch):
                continue
            if e.footprint is not None:
                out.update(alloc for alloc, *_ in e.footprint)
            elif e.opaque:
                out.update(live)
            else:
                out.update(a.alloc for a in e.args if a.alloc is not None)
        return out

    def alloc_cost(self, alloc: HostEvent, free: HostEvent | None) -> float:
        if self.gpu:
            self.measured = True
            return (alloc.ns + (free.ns if free else 0)) * 1e-9
        return self.model.alloc_s + (self.model.free_s if free else 0)

    def repeated_allocations(self, live: dict[int, HostEvent],
                             freed_at: dict[int, HostEvent]) -> None:  # fmt: skip
        by_site: dict[tuple[CallSite | None, int], list[int]] = defaultdict(list)
        for alloc, e in live.items():
            if self.allocs[alloc].kind in ("symbol", "registered"):
                continue
            by_site[(e.site, e["bytes"])].append(alloc)
        for (site, nbytes), allocs in by_site.items():
            allocs.sort(key=lambda a: live[a].seq)
            # Each one freed before the next is made: one allocation would do.
            repeats = [b for a, b in itertools.pairwise(allocs)
                       if a in freed_at and freed_at[a].seq < live[b].seq]  # fmt: skip
            if not repeats:
                continue
            g = self.group("repeated-allocation", site, self.allocs[allocs[0]].name,
                           "allocation repeated")  # fmt: skip
            for b in repeats:
                g.count += 1
                g.bytes += nbytes
                g.seconds += self.alloc_cost(live[b], freed_at.get(b))
                if b in freed_at:
                    g.related[(freed_at[b].site, "free")] = None

    def unused_allocations(self, live: dict[int, HostEvent],
                           freed_at: dict[int, HostEvent]) -> None:  # fmt: skip
        for alloc, e in sorted(live.items(), key=lambda item: item[1].seq):
            info = self.allocs[alloc]
            if info.kind in HOST_KINDS or info.kind == "symbol" or alloc in self.read_allocs_final:
                continue
            g = self.group("unused-data", e.site, info.name, "allocation no kernel reads")
            g.count += 1
            g.bytes += info.bytes
            g.seconds += self.alloc_cost(e, freed_at.get(alloc))
            copies = [c for c in self.record.copies if c.dst.alloc == alloc]
            for c in copies:
                g.seconds += self.copy_cost(c)[0]
                g.related[(c.site, "copy into it")] = None

    def message(self, g: _Group) -> str:
        each = size_text(g.bytes // max(g.count, 1))
        calls = f"{g.count} time(s)"
        if g.pattern == "duplicate-transfer":
            return f"'{g.variable}': the same {each} copied to the same device place again, {calls}"
        if g.pattern == "round-trip":
            return (f"'{g.variable}': {each} copied back to the host address they came from, "
                    f"unchanged, {calls}")  # fmt: skip
        if g.pattern == "repeated-allocation":
            return (f"'{g.variable}': {each} allocated and freed again at the same call site, "
                    f"{calls} (allocate once, reuse)")  # fmt: skip
        if g.what.startswith("allocation"):
            return f"'{g.variable}': allocation of {size_text(g.bytes)} that no kernel reads"
        return (f"'{g.variable}': {size_text(g.bytes)} copied to the device, never read by a "
                f"kernel ({g.count} copy(ies))")  # fmt: skip


def _track_live(e: HostEvent, live: set[int]) -> None:
    """Updates `live`, the allocations made and not freed yet, with event `e`."""
    if e.op == "alloc" and e.status == 0 and e.get("alloc") is not None:
        live.add(e["alloc"])
    elif e.op == "free" and e["ptr"][1] is not None and e["ptr"][2] == 0:
        live.discard(e["ptr"][1])


def size_text(n: int) -> str:
    """Bytes as people read them: 512 bytes, 4.0 KiB, 3.5 MiB."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def analyse(record: HostRecord, backend: str, model: Model = MODEL) -> Profile:
    """The transfer profile of a run's host record; `backend` as the dump names it
    ("cuda": call times are measured on a GPU; "cpu": the model is used)."""
    return _Analysis(record, backend, model).run()
