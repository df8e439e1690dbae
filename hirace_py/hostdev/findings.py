"""Host-device findings of one program run: its events replayed through the
order of host threads and streams and the byte-range state of memory
(docs/semantics.md sections 6.3 to 6.5; the kinds in docs/findings.md).

`analyse` is a pure function of a `Program`. What each byte of memory
remembers is kept per run of bytes (`RangeMap`):

- `access`: the last write to it and the reads since, each with its stamp, to
  find accesses unordered with a conflicting one (host-device races);
- `valid`: for device and managed allocations, whether anything wrote it yet
  (or the allocation that left it garbage): uninitialised reads;
- `side`: when it was last written, by what, and which byte on the other
  side of the host-device divide it mirrors since which transfer: stale data.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, replace

from hirace_py import cuda_api
from hirace_py.hostdev import events as ev
from hirace_py.hostdev.order import Order, Stamp, hb, ordered
from hirace_py.hostdev.ranges import RangeMap
from hirace_py.interpret import SourceLines
from hirace_py.report import HostFinding, HostSide

READ, WRITE, ATOMIC = "R", "W", "A"


@dataclass(frozen=True)
class Buffer:
    """An allocation hirace saw (mem set), or host memory a copy or host access
    named (mem None): its name, where it starts, its size."""

    name: str
    base: int
    size: int
    mem: ev.Mem | None
    op: Op | None = None
    """The allocation call."""


@dataclass(frozen=True)
class Op:
    """One operation as findings name it: the report side, its stamp, its issue
    position, and whether a host thread performed it (a host access)."""

    side: HostSide
    stamp: Stamp
    seq: int
    on_host: bool


@dataclass(frozen=True)
class Hist:
    """The accesses of a byte a later one may race with: the last plain write, and
    the atomic updates and the reads since it (of each, only those no later one of
    the same kind follows in happens-before: a later access unordered with the
    dropped one is unordered with the one that follows it too)."""

    write: Op | None = None
    atomics: tuple[Op, ...] = ()
    reads: tuple[Op, ...] = ()


@dataclass(frozen=True)
class Side:
    """When a byte was last written and by what (None: not since it was known),
    and the byte it mirrors: (address delta to it, issue position of the transfer)."""

    written: int = -1
    writer: Op | None = None
    link: tuple[int, int] | None = None


VALID = "valid"

COPY_WORDS = {(False, True): "host to device", (True, False): "device to host",
              (True, True): "device to device", (False, False): "host to host"}  # fmt: skip


class _Analysis:
    def __init__(self, program: ev.Program, lines: SourceLines) -> None:
        self.order = Order(program.per_thread_default_stream)
        self.lines = lines
        self.bases: list[int] = []
        self.live: dict[int, Buffer] = {}
        self.freed: dict[int, tuple[Buffer, Op]] = {}
        self.named: RangeMap[Buffer] = RangeMap()
        self.access: RangeMap[Hist] = RangeMap()
        self.valid: RangeMap[Op | str] = RangeMap()
        self.side: RangeMap[Side] = RangeMap()
        self.pending: dict[int, ev.Call] = {}
        self.found: dict[tuple, HostFinding] = {}
        self.excused: set[int] = set()
        self.callbacks: dict[int, tuple[Stamp, str]] = {}
        """Stamp and stream of each callback item, by the seq of its call."""
        self.created: dict[str, int] = {}
        """Streams created so far, by the site that created them."""

    # -- naming -----------------------------------------------------------------

    def _side(self, call: ev.Call, what: str, stream: str | None) -> HostSide:
        w = call.where
        return HostSide(what, w.file, w.line, w.column, w.function, call.thread, stream,
                        self.lines.line_at(w.file, w.line))  # fmt: skip

    def _op(self, call: ev.Call, what: str, stamp: Stamp, stream: str | None) -> Op:
        return Op(self._side(call, what, stream), stamp, call.seq, stream is None)

    def _stream(self, handle: int, thread: int) -> str:
        return self.order.stream(handle, thread).label

    def buffer(self, addr: int) -> Buffer | None:
        """The live allocation holding `addr`, else host memory a copy named there."""
        i = bisect.bisect_right(self.bases, addr) - 1
        if i >= 0:
            b = self.live[self.bases[i]]
            if addr < b.base + max(b.size, 1):
                return b
        for _, _, named in self.named.items(addr, addr + 1):
            return named
        return None

    def _name_host(self, lo: int, hi: int, name: str) -> None:
        """Host memory [lo, hi) that no allocation holds is named `name` from here on."""
        old = self.buffer(lo)
        if not name or lo >= hi or (old is not None and old.mem is not None):
            return
        base = old.base if old is not None and old.name == name else lo
        size = max(hi, (old.base + old.size) if old is not None and old.name == name else hi) - base
        self.named.set(base, base + size, Buffer(name, base, size, None))

    # -- findings -----------------------------------------------------------------

    def report(self, kind: str, lo: int, hi: int, first: Op | HostSide | None,
               second: Op | HostSide, message: str, unit: str = "byte",
               buf: Buffer | None = None) -> None:  # fmt: skip
        """One finding on bytes [lo, hi) of `buf` (by default the buffer holding
        them); findings of one kind, buffer and pair of sites merge, their ranges
        joined."""
        buf = buf or self.buffer(lo)
        name, base, size = (buf.name, buf.base, buf.size) if buf else (f"memory at {lo:#x}", lo, 0)
        if buf is not None and buf.mem is None:
            size = 0  # host memory named by its use: its size is not known
        a = first.side if isinstance(first, Op) else first
        b = second.side if isinstance(second, Op) else second
        key = (kind, name, base, a and (a.where(), a.what), b.where(), b.what)
        old = self.found.get(key)
        if old is not None:
            self.found[key] = replace(old, lo=min(old.lo, lo - base), hi=max(old.hi, hi - base),
                                      count=old.count + 1)  # fmt: skip
            return
        self.found[key] = HostFinding(kind, name, size, lo - base, hi - base, unit, a, b, message)

    # -- memory -------------------------------------------------------------------

    def touch(self, lo: int, hi: int, mode: str, op: Op, unit: str = "byte") -> None:
        """`op` reads (R), writes (W) or atomically updates (A) bytes [lo, hi)."""
        for a, b, h in list(self.access.items(lo, hi)):
            others = [(h.write, WRITE)] if h.write is not None else []
            if mode != ATOMIC:
                others += [(x, ATOMIC) for x in h.atomics]
            if mode != READ:
                others += [(r, READ) for r in h.reads]
            for other, omode in others:
                if (other.on_host and op.on_host) or ordered(other.stamp, op.stamp):
                    continue
                self.report("host-device-race", a, b, other, op,
                            f"{_word(omode)} and {_word(mode)} unordered by streams, events "
                            "or synchronisation", unit)  # fmt: skip

        def update(h: Hist | None) -> Hist:
            h = h or Hist()
            if mode == WRITE:
                return Hist(op)
            if mode == ATOMIC:
                keep = tuple(x for x in h.atomics if not hb(x.stamp, op.stamp))
                return Hist(h.write, (*keep, op), h.reads)
            keep = tuple(r for r in h.reads if not hb(r.stamp, op.stamp))
            return Hist(h.write, h.atomics, (*keep, op))

        self.access.update(lo, hi, update)

    def check_valid(self, lo: int, hi: int, op: Op, unit: str) -> None:
        for a, b, v in list(self.valid.items(lo, hi)):
            if isinstance(v, Op):
                self.report("uninitialised-read", a, b, v, op,
                            "nothing wrote these bytes since their allocation", unit)  # fmt: skip

    def validate(self, lo: int, hi: int) -> None:
        self.valid.update(lo, hi, lambda v: None if v is None else VALID)

    def write_side(self, lo: int, hi: int, op: Op, link: int | None = None) -> None:
        """Record a write of [lo, hi); `link` is the address delta to the bytes a
        host-device transfer copied them from (they mirror each other now)."""
        if link is None:
            self.side.update(lo, hi, lambda s: Side(op.seq, op, s.link if s else None))
        else:
            self.side.set(lo, hi, Side(op.seq, op, (link, op.seq)))
            self.side.update(lo + link, hi + link,
                             lambda s: Side(s.written, s.writer, (-link, op.seq)) if s
                             else Side(link=(-link, op.seq)))  # fmt: skip

    def check_stale(self, lo: int, hi: int, op: Op, kind: str, unit: str) -> None:
        """`op` reads [lo, hi): stale where the mirror of a byte was written (issued)
        after the transfer that made it a mirror and after this byte's own last
        write. Whether that write has completed does not matter: this side holds
        the old value either way."""
        for a, b, s in list(self.side.items(lo, hi)):
            if s.link is None:
                continue
            delta, since = s.link
            for _, _, m in list(self.side.items(a + delta, b + delta)):
                if m.writer is None or m.written <= max(since, s.written):
                    continue
                if kind == "stale-device-data" and not m.writer.on_host:
                    continue
                where = "device" if kind == "stale-host-data" else "host"
                self.report(kind, a, b, m.writer, op,
                            f"its {where} copy was written after the last transfer "
                            "between them", unit)  # fmt: skip

    # -- allocations ---------------------------------------------------------------

    def alloc(self, e: ev.Alloc) -> None:
        stamp = self.order.host(e.call.thread)
        if e.call.failed or not e.ptr:
            return
        op = self._op(e.call, e.call.api, stamp, None)
        buf = Buffer(e.name, e.ptr, e.bytes, e.mem, op)
        bisect.insort(self.bases, e.ptr)
        self.live[e.ptr] = buf
        self.freed.pop(e.ptr, None)
        end = e.ptr + e.bytes
        self.access.set(e.ptr, end, None)
        self.side.set(e.ptr, end, None)
        self.named.set(e.ptr, end, None)
        self.valid.set(e.ptr, end, op if e.mem != ev.Mem.PINNED else None)

    def _drop(self, buf: Buffer) -> None:
        del self.live[buf.base]
        self.bases.remove(buf.base)
        end = buf.base + buf.size
        for m in (self.access, self.side, self.valid):
            m.set(buf.base, end, None)

    def free(self, e: ev.Free) -> None:
        if e.stream is None:
            stamp = self.order.sync_device(e.call.thread)
        else:
            stamp = self.order.enqueue(e.call.thread, e.stream)
        if not e.ptr:
            return
        op = self._op(e.call, e.call.api, stamp, None)
        buf = self.live.get(e.ptr)
        kinds = (ev.Mem.PINNED,) if e.mem == ev.Mem.PINNED else (ev.Mem.DEVICE, ev.Mem.MANAGED)
        if buf is not None and buf.mem in kinds:
            self._drop(buf)
            self.freed[e.ptr] = (buf, op)
            return
        self.excused.add(e.call.seq)
        if buf is not None:
            kind = buf.mem.value if buf.mem else "host"
            why = f"it is {kind} memory, not what {e.call.api} frees"
            self.report("bad-free", e.ptr, e.ptr + 1, buf.op, op, why)
        elif e.ptr in self.freed:
            old, when = self.freed[e.ptr]
            self.report("bad-free", e.ptr, e.ptr + 1, when.side, op,
                        f"'{old.name}' was already freed", buf=old)  # fmt: skip
        elif (inner := self.buffer(e.ptr)) is not None and inner.mem is not None:
            self.report("bad-free", e.ptr, e.ptr + 1, inner.op, op,
                        f"the pointer is {e.ptr - inner.base} byte(s) into '{inner.name}', "
                        "not its start")  # fmt: skip
        else:
            self.report("bad-free", e.ptr, e.ptr + 1, None, op,
                        "no allocation starts at this pointer")  # fmt: skip

    # -- copies, memsets, launches, host accesses ---------------------------------

    def _bounds(self, ptr: int, n: int, op: Op, what: str) -> int:
        """Bytes of [ptr, ptr + n) inside the allocation it starts in; an
        out-of-bounds-copy finding for the rest."""
        buf = self.buffer(ptr)
        if buf is None or buf.mem is None or ptr + n <= buf.base + buf.size:
            return n
        inside = buf.base + buf.size - ptr
        self.excused.add(op.seq)
        self.report("out-of-bounds-copy", buf.base + buf.size, ptr + n, buf.op, op,
                    f"the {what} range [{ptr - buf.base}, {ptr - buf.base + n}) goes "
                    f"{n - inside} byte(s) past the end", buf=buf)  # fmt: skip
        return inside

    def _device(self, addr: int) -> bool:
        buf = self.buffer(addr)
        return buf is not None and buf.mem in (ev.Mem.DEVICE, ev.Mem.MANAGED)

    def copy(self, e: ev.Copy) -> None:
        c = e.call
        to_dev, from_dev = self._device(e.dst), self._device(e.src)
        host_waits = not e.asynchronous and not (to_dev and from_dev)
        if c.failed:
            stamp = self.order.host(c.thread)
        elif host_waits:
            stamp, _ = self.order.blocking(c.thread, e.stream)
        else:
            stamp = self.order.enqueue(c.thread, e.stream)
        if not to_dev:
            self._name_host(e.dst, e.dst + e.bytes, e.dst_name)
        if not from_dev:
            self._name_host(e.src, e.src + e.bytes, e.src_name)
        what = f"{c.api} ({COPY_WORDS[(from_dev, to_dev)]})"
        op = self._op(c, what, stamp, self._stream(e.stream, c.thread))
        n = min(self._bounds(e.src, e.bytes, op, "source"),
                self._bounds(e.dst, e.bytes, op, "destination"))  # fmt: skip
        if c.failed:
            return
        self.touch(e.src, e.src + n, READ, op)
        if from_dev:
            self.check_valid(e.src, e.src + n, op, "byte")
        self.touch(e.dst, e.dst + n, WRITE, op)
        self.validate(e.dst, e.dst + n)
        self.write_side(e.dst, e.dst + n, op, e.src - e.dst if to_dev != from_dev else None)

    def memset(self, e: ev.Memset) -> None:
        c = e.call
        buf = self.buffer(e.ptr)
        host_side = buf is not None and buf.mem in (ev.Mem.PINNED, ev.Mem.MANAGED)
        if c.failed:
            stamp = self.order.host(c.thread)
        elif not e.asynchronous and host_side:
            stamp = self.order.blocking(c.thread, e.stream)[0]
        else:
            stamp = self.order.enqueue(c.thread, e.stream)
        op = self._op(c, c.api, stamp, self._stream(e.stream, c.thread))
        n = self._bounds(e.ptr, e.bytes, op, "memset")
        if c.failed:
            return
        self.touch(e.ptr, e.ptr + n, WRITE, op)
        self.validate(e.ptr, e.ptr + n)
        self.write_side(e.ptr, e.ptr + n, op)

    def launch(self, e: ev.Launch) -> None:
        c = e.call
        if c.failed:
            self.order.host(c.thread)
            return
        stamp = self.order.enqueue(c.thread, e.stream)
        op = self._op(c, f"kernel {e.kernel}", stamp, self._stream(e.stream, c.thread))
        # A kernel that was not instrumented may have written what it was passed:
        # those bytes count as written, so nothing it wrote is taken for garbage;
        # no race or staleness is judged on them.
        for lo, hi in e.opaque:
            self.validate(lo, hi)
        unit = "shadow unit"
        for t in e.touches:
            if t.mode in (READ, ATOMIC):
                self.check_valid(t.lo, t.hi, op, unit)
                self.check_stale(t.lo, t.hi, op, "stale-device-data", unit)
        for t in e.touches:
            self.touch(t.lo, t.hi, t.mode, op, unit)
            if t.mode != READ:
                self.validate(t.lo, t.hi)
                self.write_side(t.lo, t.hi, op)

    def host_access(self, e: ev.HostAccess) -> None:
        c = e.call
        if not self._device(e.lo):
            self._name_host(e.lo, e.hi, e.name)
        what = "host write" if e.write else "host read"
        if e.callback is not None and e.callback in self.callbacks:
            # Made by a host function: ordered as its callback item (rule 9).
            stamp, stream = self.callbacks[e.callback]
            op = self._op(c, f"{what} in a host function", stamp, stream)
        else:
            op = self._op(c, what, self.order.host(c.thread), None)
        if e.write:
            self.touch(e.lo, e.hi, WRITE, op)
            self.validate(e.lo, e.hi)
            self.write_side(e.lo, e.hi, op)
        else:
            self.touch(e.lo, e.hi, READ, op)
            self.check_valid(e.lo, e.hi, op, "byte")
            self.check_stale(e.lo, e.hi, op, "stale-host-data", "byte")

    # -- errors ---------------------------------------------------------------------

    def errors(self, e: ev.Event) -> None:
        """Track the calls whose error nobody looked at (docs/semantics.md 6.5)."""
        c = e.call
        if isinstance(e, ev.ErrorCheck):
            self.pending.pop(c.thread, None)
            return
        if isinstance(e, ev.ThreadCreate | ev.ThreadJoin | ev.MutexOp):
            return  # not CUDA calls: their status is not a CUDA error
        # A launch has no value to look at: only cudaGetLastError/PeekAtLastError see
        # its error. A call whose use is not known counts as looked at.
        looked = False if isinstance(e, ev.Launch) else c.checked is not False
        old = self.pending.get(c.thread)
        if c.failed and looked and old is not None and old.result == c.result:
            # A kernel's failure is sticky: later calls return it too, and the
            # program looked at this one.
            del self.pending[c.thread]
        if not c.failed or looked or c.seq in self.excused:
            return
        if old is not None:
            if old.result == c.result:
                return  # the same (sticky) error again: the first call stands for it
            self._ignored(old)
        self.pending[c.thread] = c

    def _ignored(self, c: ev.Call) -> None:
        side = self._side(c, c.api, None)
        key = ("ignored-error", side.where(), c.api)
        if key not in self.found:
            self.found[key] = HostFinding("ignored-error", "", 0, 0, 0, "byte", None, side,
                                          f"{c.api} failed with {_error_name(c.result)}, "
                                          "which the program never looked at")  # fmt: skip
        else:
            self.found[key] = replace(self.found[key], count=self.found[key].count + 1)

    # -- the run ---------------------------------------------------------------------

    def step(self, e: ev.Event) -> None:
        c = e.call
        match e:
            case ev.Alloc():
                self.alloc(e)
            case ev.Free():
                self.free(e)
            case ev.Copy():
                self.copy(e)
            case ev.Memset():
                self.memset(e)
            case ev.Launch():
                self.launch(e)
            case ev.HostAccess():
                self.host_access(e)
            case ev.StreamCreate():
                self.order.host(c.thread)
                if not c.failed:
                    where = str(c.where)
                    self.created[where] = self.created.get(where, 0) + 1
                    n = self.created[where]
                    label = f"stream created at {where}" + (f" (#{n})" if n > 1 else "")
                    self.order.create_stream(e.handle, e.non_blocking, label)
            case ev.EventRecord():
                if c.failed:
                    self.order.host(c.thread)
                else:
                    self.order.record(c.thread, e.event, e.stream)
            case ev.StreamWaitEvent():
                if c.failed:
                    self.order.host(c.thread)
                else:
                    self.order.enqueue(c.thread, e.stream, after_event=e.event)
            case ev.EventSync():
                if c.failed:
                    self.order.host(c.thread)
                else:
                    self.order.sync_event(c.thread, e.event)
            case ev.StreamSync():
                if c.failed:
                    self.order.host(c.thread)
                else:
                    self.order.sync_stream(c.thread, e.stream)
            case ev.DeviceSync():
                self.order.sync_device(c.thread)
                if e.reset and not c.failed:
                    for buf in list(self.live.values()):
                        self._drop(buf)
            case ev.Callback():
                stamp = self.order.enqueue(c.thread, e.stream)
                self.callbacks[c.seq] = (stamp, self._stream(e.stream, c.thread))
            case ev.ErrorCheck():
                self.order.host(c.thread)
            case ev.ThreadCreate():
                by = self.callbacks.get(e.callback) if e.callback is not None else None
                if c.failed:
                    self.order.host(c.thread)
                else:
                    self.order.create_thread(c.thread, e.child, by[0] if by else None)
            case ev.ThreadJoin():
                # (In a host function only the calling thread's order is known:
                # the join orders nothing more, which can only add findings.)
                self.order.join_thread(c.thread, None if c.failed else e.child)
            case ev.MutexOp():
                by = self.callbacks.get(e.callback) if e.callback is not None else None
                if c.failed:
                    self.order.host(c.thread)
                elif e.lock:
                    self.order.lock(c.thread, e.mutex)
                else:
                    self.order.unlock(c.thread, e.mutex, by[0] if by else None)
            case ev.Exit():
                self.order.host(c.thread)
                for buf in list(self.live.values()):
                    if buf.op is not None:
                        self.report(
                            "leak",
                            buf.base,
                            buf.base + buf.size,
                            None,
                            buf.op,
                            "never freed before the program exited",
                        )
        self.errors(e)

    def finish(self) -> list[HostFinding]:
        for c in self.pending.values():
            self._ignored(c)
        self.pending.clear()
        return sorted(self.found.values(), key=_order_key)


def _order_key(f: HostFinding) -> tuple:
    return (f.second.file, f.second.line, f.second.column, f.kind, f.buffer, f.lo)


def _error_name(code: int) -> str:
    for name, value, text in cuda_api.catalogue().runtime_errors:
        if value == code:
            return f"{name} ({text})"
    return f"CUDA error {code}"


def _word(mode: str) -> str:
    return {READ: "a read", WRITE: "a write", ATOMIC: "an atomic update"}[mode]


def analyse(program: ev.Program, lines: SourceLines | None = None) -> list[HostFinding]:
    """Every host-device finding of the run `program` recorded, in source order."""
    a = _Analysis(program, lines or SourceLines())
    for e in program.events:
        a.step(e)
    return a.finish()


def kinds(findings: Iterable[HostFinding]) -> list[str]:
    """The kinds of `findings`, sorted (what tests compare with expectations)."""
    return sorted(f.kind for f in findings)
