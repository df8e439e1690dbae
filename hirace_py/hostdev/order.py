"""Happens-before over host threads and streams, with vector clocks
(docs/semantics.md section 6.2).

Agents are host threads and streams. `Order` is fed the program's calls in
issue order and stamps every host operation and every work item; `hb(a, b)`
then says whether a happens before b. It guarantees what the semantics
states, rule for rule, and nothing about what a backend happened to run
first: async work is async here even where the CPU backend ran it at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

LEGACY_HANDLE = 0
"""The stream handle `0`: the legacy default stream, or with per-thread default
streams the calling thread's own."""
CUDA_STREAM_LEGACY = 0x1
CUDA_STREAM_PER_THREAD = 0x2


class StreamKind(Enum):
    LEGACY = "legacy"
    BLOCKING = "blocking"
    NON_BLOCKING = "non-blocking"
    PER_THREAD = "per-thread"


Clock = dict[str, int]


@dataclass(frozen=True)
class Stamp:
    """Where an operation sits in happens-before: its agent and the vector clock it
    had, with its own entry ticked. Two stamps of one agent are never equal."""

    agent: str
    clock: tuple[tuple[str, int], ...]

    def at(self, agent: str) -> int:
        for a, t in self.clock:
            if a == agent:
                return t
        return 0


def hb(a: Stamp, b: Stamp) -> bool:
    """a happens before b (strictly)."""
    return a != b and a.at(a.agent) <= b.at(a.agent)


def ordered(a: Stamp, b: Stamp) -> bool:
    """a and b are ordered one way or the other (or are the same operation)."""
    return a == b or hb(a, b) or hb(b, a)


def _join(a: Clock, b: Clock) -> None:
    for k, v in b.items():
        if v > a.get(k, 0):
            a[k] = v


@dataclass
class _Stream:
    name: str
    """Its agent name in stamps (unique)."""
    kind: StreamKind
    label: str
    """What reports call it."""
    clock: Clock = field(default_factory=dict)


class Order:
    """The vector clocks of one program run, advanced call by call.

    Stream handles are the program's own values (`0`, `cudaStreamLegacy`,
    `cudaStreamPerThread`, or what `cudaStreamCreate` returned); a handle
    never created is taken as a blocking stream. `per_thread` says the program
    was built with per-thread default streams (handle 0 is then each thread's
    own)."""

    def __init__(self, per_thread: bool = False) -> None:
        self.per_thread = per_thread
        self.threads: dict[int, Clock] = {}
        self.streams: dict[str, _Stream] = {}
        self.created: dict[int, tuple[StreamKind, str]] = {}
        self.events: dict[int, Clock] = {}
        self.mutexes: dict[int, Clock] = {}

    # -- agents ---------------------------------------------------------------

    def _thread(self, t: int) -> Clock:
        """The clock of host thread `t`. A thread met for the first time without
        a recorded creation was created where hirace did not see it (a plain
        C++ source's `pthread_create`, a library): it is taken to start after
        everything recorded before its first operation, as in an eager run.
        That can hide its races, never invent one (docs/semantics.md 6.2)."""
        clock = self.threads.get(t)
        if clock is None:
            clock = {}
            for c in [*self.threads.values(), *(s.clock for s in self.streams.values())]:
                _join(clock, c)
            self.threads[t] = clock
        return clock

    def create_stream(self, handle: int, non_blocking: bool, label: str = "") -> None:
        """`cudaStreamCreate[WithFlags]` returned `handle`; reports call it `label`
        (by default by its handle). A handle CUDA hands out again is a new stream."""
        kind = StreamKind.NON_BLOCKING if non_blocking else StreamKind.BLOCKING
        self.created[handle] = (kind, label or f"stream {handle:#x}")
        old = self.streams.pop(f"stream {handle:#x}", None)
        if old is not None:  # its items stay ordered before whatever waited for them
            self.streams[f"stream {handle:#x} (destroyed {len(self.streams)})"] = old

    def stream(self, handle: int, thread: int) -> _Stream:
        """The stream a handle names when `thread` uses it."""
        if handle == CUDA_STREAM_PER_THREAD or (handle == LEGACY_HANDLE and self.per_thread):
            name, kind = f"per-thread stream of host thread {thread}", StreamKind.PER_THREAD
            label = name
        elif handle in (LEGACY_HANDLE, CUDA_STREAM_LEGACY):
            name, kind = "legacy default stream", StreamKind.LEGACY
            label = name
        else:
            name = f"stream {handle:#x}"
            kind, label = self.created.get(handle, (StreamKind.BLOCKING, name))
        return self.streams.setdefault(name, _Stream(name, kind, label))

    def _tick(self, agent: str, clock: Clock) -> Stamp:
        clock[agent] = clock.get(agent, 0) + 1
        return Stamp(agent, tuple(sorted(clock.items())))

    # -- host operations --------------------------------------------------------

    def host(self, thread: int) -> Stamp:
        """A host operation of `thread` (a call, or a host access)."""
        return self._tick(f"host thread {thread}", self._thread(thread))

    def _wait(self, thread: int, clock: Clock) -> Stamp:
        c = self._thread(thread)
        _join(c, clock)
        return self.host(thread)

    def sync_stream(self, thread: int, handle: int) -> Stamp:
        """`cudaStreamSynchronize`, or `cudaStreamQuery` that returned success:
        the host waits for a marker item on the stream (rules 4 and 6)."""
        marker = self.enqueue(thread, handle)
        return self._wait(thread, dict(marker.clock))

    def sync_event(self, thread: int, event: int) -> Stamp:
        """`cudaEventSynchronize`, or `cudaEventQuery` that returned success."""
        return self._wait(thread, self.events.get(event, {}))

    def sync_device(self, thread: int) -> Stamp:
        """`cudaDeviceSynchronize` (and the calls that imply it): every item issued."""
        c = self._thread(thread)
        for s in self.streams.values():
            _join(c, s.clock)
        return self.host(thread)

    # -- host threads (rule 10) ------------------------------------------------

    def create_thread(self, thread: int, child: int, by: Stamp | None = None) -> Stamp:
        """`thread` created host thread `child`: the creation happens before every
        later operation of the child. `by`: the stamp of the callback item whose
        host function created it (its agent is then that item, rule 9)."""
        stamp = by if by is not None else self.host(thread)
        _join(self.threads.setdefault(child, {}), dict(stamp.clock))
        return stamp

    def join_thread(self, thread: int, child: int | None) -> Stamp:
        """`thread` joined host thread `child` (None: a thread the record does not
        know, which orders nothing): the child's operations happen before it."""
        if child is None:
            return self.host(thread)
        return self._wait(thread, dict(self.threads.get(child, {})))

    def unlock(self, thread: int, mutex: int, by: Stamp | None = None) -> Stamp:
        """`thread` (or the callback item `by`) unlocked `mutex`: a release."""
        stamp = by if by is not None else self.host(thread)
        _join(self.mutexes.setdefault(mutex, {}), dict(stamp.clock))
        return stamp

    def lock(self, thread: int, mutex: int) -> Stamp:
        """`thread` locked `mutex`: it acquires every earlier unlock of it."""
        return self._wait(thread, dict(self.mutexes.get(mutex, {})))

    # -- work items -------------------------------------------------------------

    def enqueue(self, thread: int, handle: int, after_event: int | None = None) -> Stamp:
        """An item issued by `thread` to stream `handle` (rules 2 to 4); with
        `after_event`, a `cudaStreamWaitEvent` item (rule 5)."""
        issue = self.host(thread)
        s = self.stream(handle, thread)
        clock = dict(issue.clock)
        _join(clock, s.clock)
        if s.kind == StreamKind.LEGACY:
            for other in self.streams.values():
                if other.kind in (StreamKind.BLOCKING, StreamKind.PER_THREAD):
                    _join(clock, other.clock)
        elif s.kind in (StreamKind.BLOCKING, StreamKind.PER_THREAD):
            legacy = self.streams.get("legacy default stream")
            if legacy is not None:
                _join(clock, legacy.clock)
        if after_event is not None:
            _join(clock, self.events.get(after_event, {}))
        stamp = self._tick(s.name, clock)
        s.clock = clock
        return stamp

    def record(self, thread: int, event: int, handle: int) -> Stamp:
        """`cudaEventRecord(event, handle)`: the event now stands for this item."""
        stamp = self.enqueue(thread, handle)
        self.events[event] = dict(stamp.clock)
        return stamp

    def blocking(self, thread: int, handle: int) -> tuple[Stamp, Stamp]:
        """A blocking call's item (a `cudaMemcpy`) and the host's return after it."""
        item = self.enqueue(thread, handle)
        return item, self._wait(thread, dict(item.clock))
