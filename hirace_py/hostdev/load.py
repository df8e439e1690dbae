"""A program's host record (hirace_py.host_events) and host accesses, as the
model's events (hirace_py.hostdev.events).

The host record lists the CUDA calls in the order they completed; the host
accesses (`doc["host_accesses"]`, written by the runtime's `touch`,
hirace_py.instrument.host_access) carry how many calls had been recorded
when they were made, so each goes between the right two calls. Within one
such gap a thread's writes are placed before its reads: a read after a write
of the same byte in the gap then sees the write, so it is never taken for a
stale or uninitialised read (a read before the write in the gap may be missed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hirace_py import host_events as he
from hirace_py.hostdev import events as ev

MEM_OF_ALLOC = {"device": ev.Mem.DEVICE, "async": ev.Mem.DEVICE, "pitch": ev.Mem.DEVICE,
                "symbol": ev.Mem.DEVICE, "managed": ev.Mem.MANAGED, "pinned": ev.Mem.PINNED,
                "registered": ev.Mem.PINNED}  # fmt: skip
ALLOC_API = {"device": "cudaMalloc", "async": "cudaMallocAsync", "pitch": "cudaMallocPitch",
             "managed": "cudaMallocManaged", "pinned": "cudaMallocHost",
             "registered": "cudaHostRegister", "symbol": "__device__ variable"}  # fmt: skip
FREE_API = {"device": "cudaFree", "async": "cudaFreeAsync", "pinned": "cudaFreeHost",
            "registered": "cudaHostUnregister"}  # fmt: skip
MODES = ("read", "write", "read-write")
"""Host access modes by the code `touch` records (hirace_py.instrument.host_access)."""
NON_BLOCKING = 0x1
"""cudaStreamNonBlocking."""
IN_CALLBACK = 1 << 63
"""Set in a host access's `after` when a host function (callback) made it; the
rest is the callback's number, as its host_fn event's "callback" field has it."""


def _where(site: he.CallSite | None) -> ev.Where:
    if site is None:
        return ev.Where("<unknown>", 0, 0)
    return ev.Where(site.file, site.line, site.column, site.function)


def _ptr(raw: Any) -> int:
    """A pointer field: a Place's [ptr, alloc, offset] or a bare integer."""
    if isinstance(raw, list | tuple):
        return int(raw[0] or 0)
    return int(raw or 0)


def _api(e: he.HostEvent) -> str:
    op = e.op
    if op == "alloc":
        return ALLOC_API.get(str(e.get("kind")), "cudaMalloc")
    if op == "free":
        return FREE_API.get(str(e.get("kind")), "cudaFree")
    if op in ("memcpy", "memcpy2d", "memset", "memset2d"):
        base = {"memcpy": "cudaMemcpy", "memcpy2d": "cudaMemcpy2D", "memset": "cudaMemset",
                "memset2d": "cudaMemset2D"}[op]  # fmt: skip
        if e.get("symbol"):
            base = "cudaMemcpyToSymbol" if e.get("kind") == 1 else "cudaMemcpyFromSymbol"
        return base + ("Async" if e.get("async") else "")
    if isinstance(e, he.Launch):
        return f"kernel {e.kernel}"
    return {"stream_create": "cudaStreamCreate", "stream_sync": "cudaStreamSynchronize",
            "stream_query": "cudaStreamQuery", "stream_wait_event": "cudaStreamWaitEvent",
            "event_record": "cudaEventRecord", "event_sync": "cudaEventSynchronize",
            "event_query": "cudaEventQuery", "device_sync": "cudaDeviceSynchronize",
            "device_reset": "cudaDeviceReset", "host_fn": "cudaLaunchHostFunc",
            "get_last_error": "cudaGetLastError", "peek_last_error": "cudaPeekAtLastError",
            "thread_create": "thread creation", "thread_join": "thread join",
            "mutex_lock": "pthread_mutex_lock", "mutex_unlock": "pthread_mutex_unlock",
            "exit": "exit"}.get(op, op)  # fmt: skip


class _Builder:
    def __init__(self, record: he.HostRecord) -> None:
        self.record = record
        self.bases: dict[int, int] = {}
        self.out: list[ev.Event] = []
        self.wheres: dict[he.CallSite | None, ev.Where] = {}
        self.callbacks: dict[int, int] = {}
        """The seq of each Callback event, by the callback number the runtime gave it."""

    def call(self, e: he.HostEvent) -> ev.Call:
        checked = None if e.site is None else not e.site.discarded
        where = self.wheres.get(e.site)
        if where is None:
            where = self.wheres[e.site] = _where(e.site)
        return ev.Call(len(self.out), e.thread, where, _api(e), e.status, checked)

    def launch(self, c: ev.Call, e: he.Launch) -> ev.Launch:
        """The launch with what it did to memory: the runs of its footprint as
        touches, those kept only coarsely (or, uninstrumented, its arguments) as
        opaque ranges."""
        runs = self.runs(e)
        touches = tuple(ev.Touch(*span, cls) for cls, span in runs if cls != he.FOOTPRINT_COARSE)
        if e.footprint is not None:
            opaque = tuple(span for cls, span in runs if cls == he.FOOTPRINT_COARSE)
        else:
            opaque = self.arguments(e)
        return ev.Launch(c, e.kernel, e.stream, touches, opaque)

    def runs(self, launch: he.Launch) -> list[tuple[str, tuple[int, int]]]:
        """The class and [lo, hi) bytes of each footprint run of an instrumented
        launch on memory whose allocation the record saw."""
        out = []
        for alloc, first, end, cls in launch.footprint or ():
            base = self.bases.get(alloc)
            if base is None:
                continue
            a = self.record.allocations[alloc]
            unit = 1 << a.gran_log2
            out.append((cls, (base + first * unit, base + min(end * unit, a.bytes))))
        return out

    def arguments(self, launch: he.Launch) -> tuple[tuple[int, int], ...]:
        """The allocations a launch was passed (whole)."""
        out = []
        for place in launch.args:
            base = self.bases.get(place.alloc) if place.alloc is not None else None
            if base is not None:
                out.append((base, base + self.record.allocations[place.alloc].bytes))  # type: ignore[index]
        return tuple(out)

    def add(self, e: he.HostEvent) -> None:
        c = self.call(e)
        op, out = e.op, self.out
        if op == "alloc":
            ptr = _ptr(e.get("ptr"))
            if e.get("alloc") is not None:
                self.bases[int(e["alloc"])] = ptr
            out.append(ev.Alloc(c, ptr, int(e.get("bytes", 0)),
                                MEM_OF_ALLOC.get(str(e.get("kind")), ev.Mem.DEVICE),
                                str(e.get("name", "")), e.get("stream")))  # fmt: skip
        elif op == "free":
            mem = ev.Mem.PINNED if e.get("kind") in ("pinned", "registered") else ev.Mem.DEVICE
            out.append(ev.Free(c, _ptr(e.get("ptr")), mem, e.get("stream")))
        elif isinstance(e, he.Copy):
            self.copy(c, e)
        elif op in ("memset", "memset2d"):
            self.memset(c, e)
        elif isinstance(e, he.Launch):
            out.append(self.launch(c, e))
        elif op == "stream_create":
            flags = int(e.get("flags", 0) or 0)
            out.append(ev.StreamCreate(c, int(e.get("created", 0)), bool(flags & NON_BLOCKING)))
        elif op == "event_record":
            out.append(ev.EventRecord(c, int(e["event"]), int(e.get("stream", 0))))
        elif op == "stream_wait_event":
            out.append(ev.StreamWaitEvent(c, int(e["stream"]), int(e["event"])))
        elif op in ("event_sync", "event_query"):
            out.append(ev.EventSync(c, int(e["event"])))
        elif op in ("stream_sync", "stream_query"):
            out.append(ev.StreamSync(c, int(e.get("stream", 0))))
        elif op in ("device_sync", "device_reset"):
            out.append(ev.DeviceSync(c, reset=op == "device_reset"))
        elif op == "host_fn":
            out.append(ev.Callback(c, int(e.get("stream", 0))))
            self.callbacks[int(e.get("callback", 0) or 0)] = c.seq
        elif op in ("thread_create", "thread_join"):
            child = e.get("child")
            by = self.callbacks.get(int(e.get("callback", 0) or 0))
            if op == "thread_create":
                out.append(ev.ThreadCreate(c, int(child), by))
            else:
                out.append(ev.ThreadJoin(c, None if child is None else int(child), by))
        elif op in ("mutex_lock", "mutex_unlock"):
            out.append(ev.MutexOp(c, int(e["mutex"]), op == "mutex_lock",
                                  self.callbacks.get(int(e.get("callback", 0) or 0))))
        elif op in ("get_last_error", "peek_last_error"):
            out.append(ev.ErrorCheck(c, op == "get_last_error"))
        elif op == "exit":
            out.append(ev.Exit(c))

    def copy(self, c: ev.Call, e: he.Copy) -> None:
        stream = 0 if e.stream is None else int(e.stream)
        asynchronous = bool(e.get("async"))
        if e.op == "memcpy2d":
            width, height = int(e.get("width", 0)), int(e.get("height", 0))
            dpitch, spitch = int(e.get("dpitch", width)), int(e.get("spitch", width))
            if dpitch == spitch == width:  # rows back to back on both sides: one range
                width, height = width * height, min(height, 1)
            for row in range(height):
                self.out.append(ev.Copy(c, e.dst.ptr + row * dpitch, e.src.ptr + row * spitch,
                                        width, stream, asynchronous))  # fmt: skip
            return
        names = self.record.allocations
        dst_name = names[e.dst.alloc].name if e.dst.alloc is not None else ""
        src_name = names[e.src.alloc].name if e.src.alloc is not None else ""
        self.out.append(ev.Copy(c, e.dst.ptr, e.src.ptr, e.bytes, stream, asynchronous,
                                dst_name or e.get("dst_name", ""),
                                src_name or e.get("src_name", "")))  # fmt: skip

    def memset(self, c: ev.Call, e: he.HostEvent) -> None:
        stream = int(e.get("stream", 0) or 0)
        asynchronous = bool(e.get("async"))
        ptr = _ptr(e.get("dst"))
        if e.op == "memset2d":
            width, height, pitch = int(e["width"]), int(e["height"]), int(e["pitch"])
            for row in range(height):
                self.out.append(ev.Memset(c, ptr + row * pitch, width, stream, asynchronous))
            return
        self.out.append(ev.Memset(c, ptr, int(e.get("bytes", 0)), stream, asynchronous))

    def access(self, raw: Sequence[Any], callback: int | None = None) -> None:
        _, thread, lo, hi, mode, file, line, column, function, pointer = raw
        where = ev.Where(str(file), int(line), int(column), str(function))
        for write in (False, True) if mode == 2 else (mode == 1,):
            c = ev.Call(len(self.out), int(thread), where, "host access")
            self.out.append(ev.HostAccess(c, int(lo), int(hi), write, str(pointer), callback))


def program(doc: Mapping[str, Any], record: he.HostRecord | None = None) -> ev.Program:
    """The model's events of the dump `doc`, whose host record `record` is when
    the caller has read it already (KeyError, ValueError... on a damaged one:
    hirace_py.dump turns those into an InputError naming the file)."""
    record = record or he.read(doc)
    b = _Builder(record)
    raw = doc.get("host_accesses", [])
    # Writes before reads within a gap between calls (see the module's description).
    accesses = sorted((a for a in raw if not int(a[0]) & IN_CALLBACK),
                      key=lambda a: (int(a[0]), int(a[1]), a[4] != 1))  # fmt: skip
    in_callbacks: dict[int, list[Sequence[Any]]] = {}
    for a in raw:
        if int(a[0]) & IN_CALLBACK:
            in_callbacks.setdefault(int(a[0]) & ~IN_CALLBACK, []).append(a)
    i = 0
    for index, e in enumerate(record.events):
        while i < len(accesses) and int(accesses[i][0]) <= index:
            b.access(accesses[i])
            i += 1
        b.add(e)
        if e.op == "host_fn" and isinstance(b.out[-1], ev.Callback):
            seq = b.out[-1].call.seq
            for a in sorted(in_callbacks.pop(int(e.get("callback", 0) or 0), []),
                            key=lambda a: a[4] != 1):  # fmt: skip
                b.access(a, seq)
    for a in accesses[i:]:
        b.access(a)
    return ev.Program(tuple(b.out), record.per_thread_default_stream)
