"""A small builder of host event lists for the host-device model's tests:
each method appends one event as a program run would record it."""

from __future__ import annotations

from hirace_py.hostdev import events as ev

S1, S2, NB = 0x100, 0x200, 0x300
"""Two blocking streams and a non-blocking one (created by `Run.__init__`)."""


class Run:
    def __init__(self, per_thread: bool = False) -> None:
        self.events: list[ev.Event] = []
        self.per_thread = per_thread
        self.line = 0
        self.stream_create(S1)
        self.stream_create(S2)
        self.stream_create(NB, non_blocking=True)

    def call(self, api: str, result: int = 0, checked: bool | None = True,
             thread: int = 0) -> ev.Call:  # fmt: skip
        self.line += 1
        return ev.Call(len(self.events), thread, ev.Where("app.cu", self.line, 3, "main"), api,
                       result, checked)  # fmt: skip

    def add(self, e: ev.Event) -> ev.Event:
        self.events.append(e)
        return e

    def program(self) -> ev.Program:
        return ev.Program(tuple(self.events), self.per_thread)

    def stream_create(self, handle: int, non_blocking: bool = False) -> None:
        self.add(ev.StreamCreate(self.call("cudaStreamCreateWithFlags"), handle, non_blocking))

    def malloc(self, ptr: int, n: int, name: str = "d", mem: ev.Mem = ev.Mem.DEVICE,
               result: int = 0, checked: bool | None = True) -> None:  # fmt: skip
        api = {ev.Mem.DEVICE: "cudaMalloc", ev.Mem.MANAGED: "cudaMallocManaged",
               ev.Mem.PINNED: "cudaMallocHost"}[mem]  # fmt: skip
        self.add(ev.Alloc(self.call(api, result, checked), ptr if not result else 0, n, mem, name))

    def free(self, ptr: int, mem: ev.Mem = ev.Mem.DEVICE, result: int = 0) -> None:
        api = "cudaFreeHost" if mem == ev.Mem.PINNED else "cudaFree"
        self.add(ev.Free(self.call(api, result), ptr, mem))

    def copy(self, dst: int, src: int, n: int, stream: int = 0, asynchronous: bool = False,
             dst_name: str = "", src_name: str = "") -> None:  # fmt: skip
        api = "cudaMemcpyAsync" if asynchronous else "cudaMemcpy"
        self.add(ev.Copy(self.call(api), dst, src, n, stream, asynchronous, dst_name, src_name))

    def memset(self, ptr: int, n: int, stream: int = 0, asynchronous: bool = False) -> None:
        api = "cudaMemsetAsync" if asynchronous else "cudaMemset"
        self.add(ev.Memset(self.call(api), ptr, n, stream, asynchronous))

    def launch(self, kernel: str, stream: int = 0, *touches: tuple[int, int, str],
               result: int = 0) -> None:  # fmt: skip
        self.add(ev.Launch(self.call(kernel, result, None), kernel, stream,
                           tuple(ev.Touch(lo, hi, m) for lo, hi, m in touches)))  # fmt: skip

    def host(self, lo: int, hi: int, write: bool = False, name: str = "",
             callback: int | None = None) -> None:  # fmt: skip
        self.add(ev.HostAccess(self.call("host access"), lo, hi, write, name, callback))

    def callback(self, stream: int) -> int:
        """A cudaLaunchHostFunc; its seq, for the accesses its function makes."""
        c = self.call("cudaLaunchHostFunc")
        self.add(ev.Callback(c, stream))
        return c.seq

    def record(self, event: int, stream: int) -> None:
        self.add(ev.EventRecord(self.call("cudaEventRecord"), event, stream))

    def wait_event(self, stream: int, event: int) -> None:
        self.add(ev.StreamWaitEvent(self.call("cudaStreamWaitEvent"), stream, event))

    def sync_event(self, event: int) -> None:
        self.add(ev.EventSync(self.call("cudaEventSynchronize"), event))

    def sync_stream(self, stream: int) -> None:
        self.add(ev.StreamSync(self.call("cudaStreamSynchronize"), stream))

    def sync(self) -> None:
        self.add(ev.DeviceSync(self.call("cudaDeviceSynchronize")))

    def get_last_error(self) -> None:
        self.add(ev.ErrorCheck(self.call("cudaGetLastError"), True))

    def exit(self) -> None:
        self.add(ev.Exit(self.call("exit")))
