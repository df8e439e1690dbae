"""The host events the model reads: a whole program's CUDA calls and host
accesses, in issue order (docs/semantics.md section 6.1).

These are the model's vocabulary, filled from the program's dump
(`hirace_py.hostdev.load`). Addresses are the program's own; nothing here
has been resolved to allocations yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

CUDA_SUCCESS = 0


class Mem(Enum):
    """What kind of memory an allocation is, or a free expects."""

    DEVICE = "device"
    MANAGED = "managed"
    PINNED = "pinned"


@dataclass(frozen=True)
class Where:
    """A place in the program's source."""

    file: str
    line: int
    column: int
    function: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Call:
    """What every event has: its position in issue order, its host thread, its
    source, the API function, what it returned, and whether the program used
    that value (None: not known)."""

    seq: int
    thread: int
    where: Where
    api: str
    result: int = CUDA_SUCCESS
    checked: bool | None = None

    @property
    def failed(self) -> bool:
        return self.result != CUDA_SUCCESS


@dataclass(frozen=True)
class Alloc:
    call: Call
    ptr: int
    bytes: int
    mem: Mem
    name: str
    stream: int | None = None
    """cudaMallocAsync's stream."""


@dataclass(frozen=True)
class Free:
    call: Call
    ptr: int
    mem: Mem
    """DEVICE for cudaFree/cudaFreeAsync (which free managed memory too), PINNED for
    cudaFreeHost."""
    stream: int | None = None


@dataclass(frozen=True)
class Copy:
    call: Call
    dst: int
    src: int
    bytes: int
    stream: int
    asynchronous: bool
    dst_name: str = ""
    src_name: str = ""


@dataclass(frozen=True)
class Memset:
    call: Call
    ptr: int
    bytes: int
    stream: int
    asynchronous: bool
    name: str = ""


@dataclass(frozen=True)
class Touch:
    """Bytes [lo, hi) a kernel only read (R), only updated with device-scope
    atomics (A), or wrote (W), at shadow-unit granularity."""

    lo: int
    hi: int
    mode: str


@dataclass(frozen=True)
class Launch:
    """A kernel launch and what it did to memory: `touches` for an instrumented
    kernel; `opaque`: [lo, hi) ranges it may have read or written (for a
    kernel that was not instrumented, the allocations it was passed; for one
    that was, the ranges its footprint kept only coarsely)."""

    call: Call
    kernel: str
    stream: int
    touches: tuple[Touch, ...] = ()
    opaque: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class HostAccess:
    """Host code read (write=False) or wrote bytes [lo, hi) at call.where."""

    call: Call
    lo: int
    hi: int
    write: bool
    name: str = ""
    callback: int | None = None
    """The `seq` of the Callback whose host function made the access (None: the
    host thread itself)."""


@dataclass(frozen=True)
class StreamCreate:
    call: Call
    handle: int
    non_blocking: bool


@dataclass(frozen=True)
class EventRecord:
    call: Call
    event: int
    stream: int


@dataclass(frozen=True)
class StreamWaitEvent:
    call: Call
    stream: int
    event: int


@dataclass(frozen=True)
class EventSync:
    """cudaEventSynchronize, or cudaEventQuery (only a success orders anything)."""

    call: Call
    event: int


@dataclass(frozen=True)
class StreamSync:
    """cudaStreamSynchronize, or cudaStreamQuery (only a success orders anything)."""

    call: Call
    stream: int


@dataclass(frozen=True)
class DeviceSync:
    """cudaDeviceSynchronize; with `reset`, cudaDeviceReset (which frees everything)."""

    call: Call
    reset: bool = False


@dataclass(frozen=True)
class Callback:
    """cudaLaunchHostFunc or cudaStreamAddCallback."""

    call: Call
    stream: int


@dataclass(frozen=True)
class ErrorCheck:
    """cudaGetLastError (clears) or cudaPeekAtLastError (does not)."""

    call: Call
    clears: bool


@dataclass(frozen=True)
class ThreadCreate:
    """A host thread created host thread `child` (std::thread, pthread_create).
    `callback`: the seq of the Callback whose host function created it (None:
    the calling thread itself)."""

    call: Call
    child: int
    callback: int | None = None


@dataclass(frozen=True)
class ThreadJoin:
    """A host thread joined host thread `child` (None: one the record does not know)."""

    call: Call
    child: int | None
    callback: int | None = None


@dataclass(frozen=True)
class MutexOp:
    """pthread_mutex_lock (`lock`) or unlock of the mutex at address `mutex`
    (pthread_cond_wait is an unlock then a lock)."""

    call: Call
    mutex: int
    lock: bool
    callback: int | None = None


@dataclass(frozen=True)
class Exit:
    """The program ended by returning from main or calling exit."""

    call: Call


Event = (
    Alloc
    | Free
    | Copy
    | Memset
    | Launch
    | HostAccess
    | StreamCreate
    | EventRecord
    | StreamWaitEvent
    | EventSync
    | StreamSync
    | DeviceSync
    | Callback
    | ErrorCheck
    | ThreadCreate
    | ThreadJoin
    | MutexOp
    | Exit
)


@dataclass(frozen=True)
class Program:
    """A program run's events in issue order, and how it was built."""

    events: tuple[Event, ...]
    per_thread_default_stream: bool = False
