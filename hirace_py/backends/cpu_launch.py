"""Running one launch of a compiled kernel and turning its outcome into a
result or an error.

Isolated launches (the default) fork: argument arrays are copied into guarded
MAP_SHARED buffers (or used in place if they already are, see
`cpu_memory.shared_array`), the child runs the grid, and this process waits
with a time limit, kills the child if it runs over, copies written arrays back
and reads the child's status page: divergence, time-out, fault address,
faulting instruction. In-process launches (`isolate=False`) pass the arrays'
own memory and run on the calling thread: faster to start, but a fault kills
the process, nothing is bounds-checked, and only the engine's own clock checks
(at barriers and thread switches) enforce the time limit. Time limits count CPU
time (`hirace_py.time_limits`).
"""

from __future__ import annotations

import ctypes
import mmap
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hirace_py.backends.cpu_args import ArrayArgument, Converted
from hirace_py.backends.cpu_errors import (
    BarrierDivergence,
    KernelCrash,
    KernelError,
    KernelTimeout,
    LaunchError,
    OutOfBounds,
    WaitSite,
)
from hirace_py.backends.cpu_memory import Buffer, GuardedMap, owning_buffer
from hirace_py.backends.cpu_status import FaultKind, LaunchStatus, WaitOp
from hirace_py.children import Overrun, wait_child
from hirace_py.launch_config import LaunchConfig
from hirace_py.time_limits import backstop

# An isolated child gets this long beyond the time limit to stop by itself
# (with a report naming the block) before it is killed: CPU seconds for its
# CPU limit, wall-clock seconds beyond the backstop (hirace_py.time_limits).
_KILL_GRACE = 0.25

# Launches run one at a time per process: the engine's scheduler state is global.
_LOCK = threading.Lock()


class LaunchConfigRecord(ctypes.Structure):
    """Mirror of hr_launch_cfg (cuda_cpu_launch.h)."""

    _fields_ = [
        ("grid", ctypes.c_uint32 * 3),
        ("block", ctypes.c_uint32 * 3),
        ("shared_bytes", ctypes.c_uint64),
        ("seed", ctypes.c_uint64),
        ("stack_bytes", ctypes.c_uint64),
        ("timeout_s", ctypes.c_double),
        ("schedule", ctypes.c_int32),
        ("exited_threads", ctypes.c_int32),
        ("isolate", ctypes.c_int32),
        ("out_fd", ctypes.c_int32),
        ("err_fd", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        ("kernel_name", ctypes.c_char_p),
    ]


class SiteRecord(ctypes.Structure):
    """Mirror of hr_site (cuda_cpu.h)."""

    _fields_ = [
        ("file", ctypes.c_char * 240),
        ("line", ctypes.c_int32),
        ("op", ctypes.c_int32),
        ("threads", ctypes.c_uint32),
        ("first_thread", ctypes.c_uint32),
    ]


class StatusRecord(ctypes.Structure):
    """Mirror of hr_status (cuda_cpu.h)."""

    _fields_ = [
        ("code", ctypes.c_int32),
        ("signal", ctypes.c_int32),
        ("block", ctypes.c_uint32 * 3),
        ("thread", ctypes.c_uint32 * 3),
        ("thread_valid", ctypes.c_int32),
        ("fault_kind", ctypes.c_int32),
        ("fault_is_write", ctypes.c_int32),
        ("n_sites", ctypes.c_int32),
        ("n_exited", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
        ("fault_addr", ctypes.c_uint64),
        ("fault_ip", ctypes.c_uint64),
        ("fault_offset", ctypes.c_int64),
        ("fault_size", ctypes.c_uint64),
        ("blocks_done", ctypes.c_uint64),
        ("seconds", ctypes.c_double),
        ("sites", SiteRecord * 8),
        ("message", ctypes.c_char * 2048),
    ]


def check_abi(library: Path) -> None:
    """Fails loudly if the runtime's structures differ from the mirrors above."""
    lib = ctypes.CDLL(str(library))
    cfg, status = ctypes.c_uint64(), ctypes.c_uint64()
    lib.hr_abi_sizes(ctypes.byref(cfg), ctypes.byref(status))
    expected = (ctypes.sizeof(LaunchConfigRecord), ctypes.sizeof(StatusRecord))
    if (cfg.value, status.value) != expected:
        raise RuntimeError(
            f"CPU backend runtime ABI mismatch: sizes {(cfg.value, status.value)} != {expected}"
        )


@dataclass(frozen=True)
class LaunchRequest:
    """Everything about one launch except the arguments."""

    kernel: str
    config: LaunchConfig
    timeout: float
    isolate: bool
    stack_bytes: int
    echo: bool = True
    """Echo the kernel's printf output to sys.stdout (it is in the result either way)."""


@dataclass(frozen=True)
class LaunchResult:
    """A finished launch. `stdout` is the kernel's printf output (also echoed to
    sys.stdout); `stderr` what the child process wrote to its stderr (isolated
    launches; also echoed); `seconds` the time spent running the grid, measured
    inside the process that ran it."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    stdout: str
    stderr: str
    seconds: float


@dataclass
class _Placed:
    """An array argument as the kernel sees it: where, and how to map faults."""

    argument: ArrayArgument
    address: int
    buffer: Buffer | None  # its guarded buffer (isolated launches)
    staging: np.ndarray | None  # the copy in guarded memory, to copy back


def _place_arrays(converted: list[Converted], isolate: bool) -> list[_Placed]:
    arrays = [c for c in converted if isinstance(c, ArrayArgument)]
    placed: list[_Placed] = []
    to_copy: list[ArrayArgument] = []
    for arg in arrays:
        address = arg.array.ctypes.data
        owner = owning_buffer(address, arg.array.nbytes) if isolate else None
        if owner is not None or not isolate:
            placed.append(_Placed(arg, address, owner[1] if owner else None, None))
        else:
            to_copy.append(arg)
    if to_copy:
        mapping = GuardedMap.create([a.array.nbytes for a in to_copy])
        for i, arg in enumerate(to_copy):
            staging = mapping.array(i, np.dtype(np.uint8), (arg.array.nbytes,))
            staging[:] = arg.array.reshape(-1).view(np.uint8)
            buf = mapping.buffers[i]
            placed.append(_Placed(arg, buf.start, buf, staging))
    return placed


def _argument_block(
    converted: list[Converted], placed: list[_Placed]
) -> tuple[ctypes.Array[ctypes.c_char], ctypes.Array[ctypes.c_void_p]]:
    """The buffers the entry point reads parameters from, and pointers to them."""
    where = {id(p.argument): p.address for p in placed}
    values: list[bytes] = []
    for c in converted:
        if c is None:
            values.append(bytes(8))
        elif isinstance(c, ArrayArgument):
            values.append(where[id(c)].to_bytes(8, "little"))
        else:
            values.append(c)
    offsets, total = [], 0
    for v in values:
        offsets.append(total)
        total += (len(v) + 15) // 16 * 16
    block = ctypes.create_string_buffer(max(total, 16))
    for v, off in zip(values, offsets, strict=True):
        ctypes.memmove(ctypes.addressof(block) + off, v, len(v))
    pointers = (ctypes.c_void_p * max(len(values), 1))(
        *[ctypes.addressof(block) + off for off in offsets]
    )
    return block, pointers


def _read_all(fd: int) -> str:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


EntryPoint = Callable[[ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p], int]


def execute(
    entry: EntryPoint,
    request: LaunchRequest,
    converted: list[Converted],
    locate: Callable[[int], str | None],
) -> LaunchResult:
    """Runs one launch; `locate` maps an instruction address to "file:line"."""
    placed = _place_arrays(converted, request.isolate)
    # `values` holds the parameter bytes that `pointers` point into.
    values, pointers = _argument_block(converted, placed)
    status_map = mmap.mmap(-1, ctypes.sizeof(StatusRecord)) if request.isolate else None
    status = StatusRecord.from_buffer(status_map) if status_map is not None else StatusRecord()
    out_fd = os.memfd_create("hirace-stdout")
    err_fd = os.memfd_create("hirace-stderr") if request.isolate else -1
    launch = request.config
    cfg = LaunchConfigRecord(
        (ctypes.c_uint32 * 3)(*launch.grid),
        (ctypes.c_uint32 * 3)(*launch.block),
        launch.shared_bytes,
        launch.seed,
        request.stack_bytes,
        request.timeout,
        int(launch.schedule),
        int(launch.exited_threads),
        int(request.isolate),
        out_fd,
        err_fd,
        0,
        request.kernel.encode(),
    )
    try:
        with _LOCK:
            pid = entry(ctypes.byref(cfg), ctypes.byref(status), pointers)
        killed: Overrun | None = None
        wait_status = 0
        if request.isolate:
            if pid < 0:
                raise KernelError(
                    f"kernel `{request.kernel}`: cannot fork: {os.strerror(-pid)}", request.kernel
                )
            wait_status, killed = wait_child(
                pid, request.timeout + _KILL_GRACE, backstop(request.timeout) + _KILL_GRACE
            )
        for p in placed:
            if p.staging is not None and p.argument.writes:
                p.argument.array.reshape(-1).view(np.uint8)[:] = p.staging
        stdout = _read_all(out_fd)
        stderr = _read_all(err_fd) if err_fd >= 0 else ""
    finally:
        os.close(out_fd)
        if err_fd >= 0:
            os.close(err_fd)
    del values
    if stdout and request.echo:
        sys.stdout.write(stdout)
    if stderr:
        sys.stderr.write(stderr)
    _raise_for_status(request, status, wait_status, killed, placed, stderr, locate)
    return LaunchResult(
        request.kernel, launch.grid, launch.block, stdout, stderr, float(status.seconds)
    )


def _xyz(values: ctypes.Array[ctypes.c_uint32]) -> tuple[int, int, int]:
    return (int(values[0]), int(values[1]), int(values[2]))


def _raise_for_status(
    request: LaunchRequest,
    status: StatusRecord,
    wait_status: int,
    killed: Overrun | None,
    placed: list[_Placed],
    stderr: str,
    locate: Callable[[int], str | None],
) -> None:
    kernel = request.kernel
    block = _xyz(status.block)
    message = status.message.decode(errors="replace")
    if killed or status.code == LaunchStatus.timeout:
        if not message:
            limit = (
                f"its wall-clock backstop of {backstop(request.timeout):g} s"
                if killed is Overrun.wall
                else f"the time limit of {request.timeout:g} CPU s"
            )
            message = (
                f"kernel `{kernel}` exceeded {limit} "
                f"(in block ({block[0]},{block[1]},{block[2]}), after {status.blocks_done} "
                "complete blocks); it was stopped"
            )
        raise KernelTimeout(message, kernel, block, request.timeout)
    if status.code == LaunchStatus.divergence:
        sites = [
            WaitSite(
                WaitOp(s.op).source if 0 <= s.op < len(WaitOp) else "?",
                s.file.decode(errors="replace"),
                s.line,
                s.threads,
                s.first_thread,
            )
            for s in status.sites[: status.n_sites]
        ]
        raise BarrierDivergence(message, kernel, block, sites, status.n_exited > 0)
    if status.code == LaunchStatus.kernel_error:
        thread = _xyz(status.thread) if status.thread_valid else None
        raise KernelError(message, kernel, block, thread)
    if status.code == LaunchStatus.config_error:
        raise LaunchError(message)
    if status.code == LaunchStatus.fault:
        raise _fault_error(request, status, placed, stderr, locate)
    if request.isolate and wait_status != 0:
        if os.WIFSIGNALED(wait_status):
            name = signal.Signals(os.WTERMSIG(wait_status)).name
            raise KernelCrash(
                f"kernel `{kernel}`: the launch process was killed by {name}",
                kernel,
                block,
                None,
                name,
                None,
            )
        raise KernelCrash(
            f"kernel `{kernel}`: the launch process exited with status "
            f"{os.waitstatus_to_exitcode(wait_status)}",
            kernel,
            block,
            None,
            "exit",
            None,
        )


_SIGNAL_HINTS = {
    "SIGFPE": "arithmetic exception, e.g. integer division by zero",
    "SIGABRT": "abort, e.g. a failed assert()",
    "SIGILL": "illegal instruction",
    "SIGBUS": "bus error, e.g. a misaligned vector access",
    "SIGTRAP": "trap",
}


def _fault_error(
    request: LaunchRequest,
    status: StatusRecord,
    placed: list[_Placed],
    stderr: str,
    locate: Callable[[int], str | None],
) -> KernelError:
    kernel = request.kernel
    block = _xyz(status.block)
    thread = _xyz(status.thread) if status.thread_valid else None
    signame = signal.Signals(status.signal).name if status.signal > 0 else "signal"
    location = locate(int(status.fault_ip)) if status.fault_ip else None
    who = ""
    if thread is not None:
        who += f" by thread ({thread[0]},{thread[1]},{thread[2]})"
    who += f" of block ({block[0]},{block[1]},{block[2]})"
    if location:
        who += f" at {location}"
    access = "write" if status.fault_is_write else "read"
    address = int(status.fault_addr)
    if status.fault_kind == FaultKind.dyn_shared:
        offset, size = int(status.fault_offset), int(status.fault_size)
        return OutOfBounds(
            f"kernel `{kernel}`: out-of-bounds {access} of dynamic shared memory at byte "
            f"{offset} (size {size} bytes; shared_bytes={request.config.shared_bytes}){who}",
            kernel, block, thread, "dynamic shared memory", offset, size,
            bool(status.fault_is_write), location,
        )  # fmt: skip
    if status.fault_kind == FaultKind.stack:
        return KernelCrash(
            f"kernel `{kernel}`: stack overflow{who} (stack size "
            f"{request.stack_bytes // 1024} KiB; set HIRACE_STACK_KB for more)",
            kernel, block, thread, signame, location,
        )  # fmt: skip
    if signame in ("SIGSEGV", "SIGBUS"):
        hit = [p for p in placed if p.buffer is not None and p.buffer.after_end(address)]
        hit = hit or [p for p in placed if p.buffer is not None and p.buffer.before_start(address)]
        if hit:
            p = hit[0]
            assert p.buffer is not None
            size = p.argument.element_size
            index = (address - p.buffer.start) // size
            length = p.argument.array.nbytes // size
            return OutOfBounds(
                f"kernel `{kernel}`: out-of-bounds {access} of argument `{p.argument.name}` "
                f"at element {index} (length {length}){who}",
                kernel, block, thread, p.argument.name, index, length,
                bool(status.fault_is_write), location,
            )  # fmt: skip
        what = "null pointer" if address < 4096 else f"address {address:#x}"
        return KernelCrash(
            f"kernel `{kernel}`: invalid memory {access} at {what} ({signame}){who}",
            kernel, block, thread, signame, location,
        )  # fmt: skip
    hint = _SIGNAL_HINTS.get(signame, "fatal signal")
    detail = f": {stderr.strip().splitlines()[-1]}" if stderr.strip() else ""
    return KernelCrash(
        f"kernel `{kernel}` crashed with {signame} ({hint}){who}{detail}",
        kernel, block, thread, signame, location,
    )  # fmt: skip


class _DlInfo(ctypes.Structure):
    _fields_ = [
        ("dli_fname", ctypes.c_char_p),
        ("dli_fbase", ctypes.c_void_p),
        ("dli_sname", ctypes.c_char_p),
        ("dli_saddr", ctypes.c_void_p),
    ]


_libc = ctypes.CDLL(None)
_libc.dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
_libc.dladdr.restype = ctypes.c_int


def source_line(address: int, library: Path, display: str) -> str | None:
    """ "file:line" of the instruction at `address` if it lies in `library`
    (a kernel module), from its line tables (addr2line), skipping frames
    inlined from the runtime headers; None if unknown. The module's own source
    is shown under `display`, the name it was compiled under."""
    info = _DlInfo()
    if not _libc.dladdr(ctypes.c_void_p(address), ctypes.byref(info)) or not info.dli_fname:
        return None
    if Path(info.dli_fname.decode()).resolve() != library.resolve():
        return None
    offset = address - (info.dli_fbase or 0)
    try:
        out = subprocess.run(
            ["addr2line", "-i", "-e", str(library), f"{offset:#x}"],
            capture_output=True, text=True, check=False, timeout=30,
        ).stdout  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in out.splitlines():
        where = line.split(" (discriminator")[0].strip()
        file, _, number = where.rpartition(":")
        if not file or file == "??" or not number.isdigit() or number == "0":
            continue
        if Path(file).name.startswith("cuda_cpu"):
            continue
        if file.endswith(display):
            file = display
        return f"{file}:{number}"
    return None
