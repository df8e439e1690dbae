"""The host-side CUDA API record of a whole program, read into typed events.

An instrumented program (templates/hirace_host.h.j2) records every CUDA API
call its instrumented units make, in the order the calls completed (`seq`,
total over host threads, so each thread's calls are in program order), each
with its call site, its return status and timestamps: allocations, frees,
copies and memsets (with a content hash of the bytes copied), kernel
launches (with the device pointers passed), stream, event and device
synchronisation, host callbacks, and an `exit` marker. The dump carries the
raw record; `read(doc)` turns it into a `HostRecord`. docs/host-events.md
documents every field.

This module is the one source of truth for the record's enumerations: the
operation names (`OPS`), the allocation kinds (`ALLOC_KINDS`) and the
footprint class of each FSM state (`FOOTPRINT_CLASS`) are rendered into the
host runtime from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hirace_py import fsm

OPS: tuple[str, ...] = (
    "alloc",            # cudaMalloc, Managed, Async, Pitch, MallocHost, HostAlloc, HostRegister
    "free",             # cudaFree, FreeAsync, FreeHost, HostUnregister
    "memcpy",           # cudaMemcpy(Async), cudaMemcpyToSymbol/FromSymbol(Async)
    "memcpy2d",         # cudaMemcpy2D(Async)
    "memset",           # cudaMemset(Async)
    "memset2d",         # cudaMemset2D(Async)
    "launch",           # k<<<g, b, s, st>>>(args)
    "stream_create",    # cudaStreamCreate, WithFlags, WithPriority
    "stream_destroy",
    "stream_sync",      # cudaStreamSynchronize
    "stream_query",     # cudaStreamQuery (status cudaSuccess: the stream's work is done)
    "stream_wait_event",
    "event_create",     # cudaEventCreate, WithFlags
    "event_destroy",
    "event_record",     # cudaEventRecord, WithFlags
    "event_sync",       # cudaEventSynchronize
    "event_query",      # cudaEventQuery (status cudaSuccess: the event has completed)
    "device_sync",      # cudaDeviceSynchronize, cudaThreadSynchronize
    "device_reset",     # cudaDeviceReset, cudaThreadExit
    "host_fn",          # cudaStreamAddCallback, cudaLaunchHostFunc
    "get_last_error",   # cudaGetLastError
    "peek_last_error",  # cudaPeekAtLastError
    "thread_create",    # std::thread, pthread_create: `child` numbers the new host thread
    "thread_join",      # std::thread::join, pthread_join: `child` (null: not known)
    "mutex_lock",       # pthread_mutex_lock/trylock, the re-lock of pthread_cond_(timed)wait
    "mutex_unlock",     # pthread_mutex_unlock, the unlock of pthread_cond_(timed)wait
    "exit",             # the program's normal exit (at_exit): allocations still live leaked
)  # fmt: skip
"""Operation names, by the code the runtime writes (its `Op` enum)."""

ALLOC_KINDS: tuple[str, ...] = (
    "device",      # cudaMalloc
    "managed",     # cudaMallocManaged
    "async",       # cudaMallocAsync (stream-ordered)
    "pitch",       # cudaMallocPitch (bytes = pitch * height)
    "pinned",      # cudaMallocHost, cudaHostAlloc: page-locked host memory
    "registered",  # cudaHostRegister: existing host memory made page-locked
    "symbol",      # a __device__ variable (registered at the first recorded call)
)  # fmt: skip
"""Allocation kinds, by the code the runtime writes."""

HOST_KINDS = frozenset({"pinned", "registered"})
"""Allocation kinds that are host memory (readable by the host, in place)."""

MEMCPY_KINDS: tuple[str, ...] = (
    "HostToHost", "HostToDevice", "DeviceToHost", "DeviceToDevice", "Default",
)  # fmt: skip
"""cudaMemcpyKind's names by value."""


def _footprint_class(summary: fsm.Summary) -> int:
    if summary.kind == "init":
        return 0
    # Only read: a plain read by another block conflicts with nothing in the
    # history (reads and atomic loads only).
    return 1 if summary.kind in ("single", "multi") and fsm.Action.R in summary.cross else 2


FOOTPRINT_CLASS: tuple[int, ...] = tuple(_footprint_class(s) for s in fsm.SUMMARIES)
"""What a launch did to a shadow unit, by the FSM state it left there: 0 not
touched (INIT), 1 only read (reads and atomic loads: the cross-block class
of the whole history admits a plain read),
2 written, updated atomically or raced. A unit read and then written counts
as written (the state does not keep the order of the first two accesses)."""

FOOTPRINT_COARSE = "?"
"""The class of a footprint run that may have been read or written."""

FOOTPRINT_RUNS = 4096
"""The most runs a launch's footprint keeps for one allocation. A launch
with more (a strided or sparse pass over a large array: millions of runs,
hundreds of MB of dump) keeps instead one run of class "?" from the first
to the end of the last unit it touched there: a range it may have read or
written, which readers treat as they treat the arguments of a kernel that
was not instrumented, and which the report counts (`coarse-footprint`)."""


@dataclass(frozen=True)
class CallSite:
    """Where a recorded call is written: file (as reports name it), line,
    column, the enclosing function, and whether the call's value is discarded
    (an expression statement: a returned error cannot be looked at; always true for
    a launch, which returns nothing: its error is what cudaGetLastError says next)."""

    file: str
    line: int
    column: int
    function: str
    discarded: bool

    def where(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Allocation:
    """One registered allocation, by id (the id device records carry as
    `kAllocation | id`): its variable name, bytes, kind and shadow granularity."""

    id: int
    name: str
    bytes: int
    kind: str
    gran_log2: int


@dataclass(frozen=True)
class Place:
    """A pointer as the runtime resolved it when the call was made: its value,
    and the live allocation it fell in (None: memory hirace did not register,
    such as malloc'd host memory) with the byte offset into it. `readonly`: a
    launch argument whose kernel parameter points to const."""

    ptr: int
    alloc: int | None
    offset: int
    readonly: bool = False


@dataclass(frozen=True)
class HostEvent:
    """One CUDA API call. `seq`: position in the record (calls in completion
    order, over all host threads); `thread`: host thread, numbered from 0 in
    order of their first call; `start_ns`: when the call began, from the
    program's start; `ns`: how long the call took on the host (for an
    asynchronous call: to issue it, not to do the work); `status`: the
    cudaError_t it returned."""

    seq: int
    op: str
    thread: int
    site: CallSite | None
    status: int
    start_ns: int
    ns: int
    fields: Mapping[str, Any] = field(default_factory=dict)
    """The operation's own fields, as docs/host-events.md lists them."""

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.fields.get(key, default)


@dataclass(frozen=True)
class Copy(HostEvent):
    """A memcpy or memcpy2d: `dst`, `src` (Places), `bytes` copied, `kind`
    (cudaMemcpyKind's name), `stream` (None: a blocking call on the default
    stream), `hash` (XXH3-64 of the bytes copied, or, where the record says
    `compared`, a content id; None where they could not be hashed in place or
    where no pattern of the transfer profile could compare the hash: then
    `hash_unused`), `symbol` (the __device__ variable, for symbol copies)."""

    dst: Place = Place(0, None, 0)
    src: Place = Place(0, None, 0)
    bytes: int = 0
    kind: str = "Default"
    stream: int | None = None
    hash: int | None = None
    hash_unused: bool = False
    symbol: str | None = None

    def direction(self, allocations: Sequence[Allocation]) -> str:
        """The kind, with cudaMemcpyDefault resolved by where dst and src are
        (registered device-side allocations are device memory; anything else host)."""
        if self.kind != "Default":
            return self.kind

        def side(p: Place) -> str:
            on_host = p.alloc is None or allocations[p.alloc].kind in HOST_KINDS
            return "Host" if on_host else "Device"

        return f"{side(self.src)}To{side(self.dst)}"


@dataclass(frozen=True)
class Launch(HostEvent):
    """A kernel launch: `kernel`, `grid`, `block`, `shared` bytes, `stream`,
    `args` (the pointer arguments, as Places), `launch` (index into the dump's
    instrumented launches; None when the kernel was not instrumented) and
    `footprint` (what an instrumented launch did to each allocation's shadow
    units: (alloc, first unit, end unit, "R", "W" or "?") runs, "?" for a
    range that may have been read or written (`FOOTPRINT_RUNS`); None when
    not instrumented) and `opaque` (the kernel may reach memory through
    pointers held in memory, which `args` do not show: a struct holding
    pointers, a pointer to a pointer or to void, a `cudaLaunchKernel`;
    hirace_py.instrument.host.opaque_parameter)."""

    kernel: str = ""
    grid: tuple[int, int, int] = (1, 1, 1)
    block: tuple[int, int, int] = (1, 1, 1)
    shared: int = 0
    stream: int = 0
    args: tuple[Place, ...] = ()
    launch: int | None = None
    footprint: tuple[tuple[int, int, int, str], ...] | None = None
    opaque: bool = False


@dataclass
class HostRecord:
    """A program run's host record: its events in order, the allocations they
    name, and what the record could not do (counted, never dropped silently)."""

    events: list[HostEvent]
    allocations: list[Allocation]
    hashing: bool
    """Whether the runtime could hash transfers (built with xxhash.h)."""
    per_thread_default_stream: bool
    """Built with CUDA_API_PER_THREAD_DEFAULT_STREAM (nvcc --default-stream per-thread)."""
    kernels_instrumented: bool
    """Whether any unit instrumented its kernels (footprints exist)."""
    compared: bool = False
    """Whether the runtime compared copies instead of hashing them (the CPU
    backend, kernels not instrumented): each `hash` is then a content id, equal
    to that of the copy a pattern compares it with exactly when their bytes are
    (docs/profile.md)."""

    def of(self, *ops: str) -> list[HostEvent]:
        return [e for e in self.events if e.op in ops]

    @property
    def copies(self) -> list[Copy]:
        return [e for e in self.events if isinstance(e, Copy)]

    @property
    def launches(self) -> list[Launch]:
        return [e for e in self.events if isinstance(e, Launch)]


def _place(raw: Sequence[Any]) -> Place:
    ptr, alloc, offset = raw[:3]
    readonly = bool(raw[3]) if len(raw) > 3 else False
    return Place(int(ptr or 0), None if alloc is None else int(alloc), int(offset or 0), readonly)


def _memcpy_kind(value: int) -> str:
    """cudaMemcpyKind's name; a value CUDA rejects (the call failed) by its number."""
    return MEMCPY_KINDS[value] if 0 <= value < len(MEMCPY_KINDS) else f"kind {value}"


_COMMON = ("seq", "op", "thread", "site", "status", "t", "ns")


def _event(raw: Mapping[str, Any], sites: Sequence[CallSite],
           launches: Sequence[Mapping[str, Any]]) -> HostEvent:  # fmt: skip
    site = sites[raw["site"]] if raw.get("site") is not None else None
    common = dict(seq=int(raw["seq"]), op=str(raw["op"]), thread=int(raw["thread"]), site=site,
                  status=int(raw["status"]), start_ns=int(raw["t"]), ns=int(raw["ns"]))  # fmt: skip
    rest = {k: v for k, v in raw.items() if k not in _COMMON}
    op = common["op"]
    if op not in OPS:
        raise ValueError(f"unknown host event op {op!r}")
    if op in ("memcpy", "memcpy2d"):
        h = rest.get("hash")
        return Copy(**common, fields=rest, dst=_place(rest["dst"]), src=_place(rest["src"]),
                    bytes=int(rest["bytes"]), kind=_memcpy_kind(int(rest["kind"])),
                    stream=rest.get("stream"), hash=None if h is None else int(h, 16),
                    hash_unused=bool(rest.get("hash_unused", False)),
                    symbol=rest.get("symbol"))  # fmt: skip
    if op == "launch":
        index = rest.get("launch")
        footprint = None
        if index is not None and index < len(launches):
            runs = launches[index].get("footprint")
            footprint = None if runs is None else tuple((int(a), int(f), int(e), str(k))
                                                        for a, f, e, k in runs)  # fmt: skip
        return Launch(**common, fields=rest, kernel=str(rest["kernel"]),
                      grid=tuple(rest["grid"]), block=tuple(rest["block"]),  # type: ignore[arg-type]
                      shared=int(rest["shared"]), stream=int(rest["stream"]),
                      args=tuple(_place(a) for a in rest["args"]), launch=index,
                      footprint=footprint, opaque=bool(rest.get("opaque", False)))  # fmt: skip
    return HostEvent(**common, fields=rest)


def read(doc: Mapping[str, Any]) -> HostRecord:
    """The host record of a parsed dump (KeyError, ValueError... on a damaged one:
    hirace_py.dump turns those into an InputError naming the file)."""
    host = doc["host"]
    sites = [CallSite(str(f), int(line), int(col), str(fn), bool(d))
             for f, line, col, fn, d in host["sites"]]  # fmt: skip
    allocations = [Allocation(i, str(a[0]), int(a[1]), ALLOC_KINDS[int(a[2])], int(a[3]))
                   for i, a in enumerate(doc["allocations"])]  # fmt: skip
    events = [_event(raw, sites, doc["launches"]) for raw in host["events"]]
    kernels = any(u["kernels"] for u in doc["units"])
    return HostRecord(events, allocations, bool(host["hashing"]),
                      bool(host["per_thread_default_stream"]), kernels,
                      bool(host.get("compared", False)))  # fmt: skip
