"""How a CPU-backend launch ends, as the engine reports it in `hr_status`.

These enums are the source of the engine's `hr::Status`, `hr::Fault` and
`hr::Op` (rendered into cuda_cpu.h by `cxx_enums`); Python reads the status
record through them.
"""

from __future__ import annotations

from enum import IntEnum


class LaunchStatus(IntEnum):
    """Ways a launch ends (hr_status::code)."""

    ok = 0
    divergence = 1  # threads wait at different barriers, or for exited threads
    timeout = 2
    fault = 3  # a memory fault (see FaultKind) or another fatal signal
    kernel_error = 4  # __trap(), a bad warp-operation mask, ...
    config_error = 5  # invalid grid, block or shared memory size
    interrupted = 6  # the waiting process was interrupted by a signal


class FaultKind(IntEnum):
    """Where a faulting address lies, when the engine knows (hr_status::fault_kind)."""

    unknown = 0  # not engine memory: the caller maps it (e.g. to arguments)
    stack = 1  # a thread's stack guard page: stack overflow
    dyn_shared = 2  # past the end of dynamic shared memory
    signal = 3  # a fatal signal that is not a memory fault


class WaitOp(IntEnum):
    """Barriers and warp operations, as recorded at each waiting thread."""

    sync_threads = 0
    sync_threads_count = 1
    sync_threads_and = 2
    sync_threads_or = 3
    sync_warp = 4
    shfl_idx = 5
    shfl_up = 6
    shfl_down = 7
    shfl_xor = 8
    ballot = 9
    any = 10
    all = 11
    match_any = 12
    match_all = 13
    active_mask = 14
    reduce_add = 15
    reduce_min = 16
    reduce_max = 17
    reduce_min_signed = 18
    reduce_max_signed = 19
    reduce_and = 20
    reduce_or = 21
    reduce_xor = 22
    grid_sync = 23

    @property
    def source(self) -> str:
        """The operation as the kernel's source spells it, for reports."""
        return _SOURCES[self]


_SOURCES = (
    "__syncthreads()", "__syncthreads_count()", "__syncthreads_and()", "__syncthreads_or()",
    "__syncwarp()", "__shfl_sync()", "__shfl_up_sync()", "__shfl_down_sync()",
    "__shfl_xor_sync()", "__ballot_sync()", "__any_sync()", "__all_sync()",
    "__match_any_sync()", "__match_all_sync()", "__activemask()", "__reduce_add_sync()",
    "__reduce_min_sync()", "__reduce_max_sync()", "__reduce_min_sync()", "__reduce_max_sync()",
    "__reduce_and_sync()", "__reduce_or_sync()", "__reduce_xor_sync()", "this_grid().sync()",
)  # fmt: skip
assert len(_SOURCES) == len(WaitOp)
