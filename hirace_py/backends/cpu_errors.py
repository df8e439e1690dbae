"""Errors of the CPU backend.

All are `HiraceError`s, so the CLI prints them as one-line errors: a source
that does not compile or a launch that cannot start is bad input (exit 2); a
launch that started and failed is a finding about the program (exit 1). Each
message names the kernel and where things went wrong (file:line, argument,
block and thread); the attributes carry the same facts for programs.
Argument mismatches are `ArgumentMismatch` errors naming the parameter.
"""

from __future__ import annotations

from dataclasses import dataclass

from hirace_py.errors import Finding, HiraceError


class CompileError(HiraceError):
    """g++ rejected the kernel source. `message` is the compiler's output;
    `file`/`line` locate the first error in the user's source when known."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line


class LaunchError(HiraceError, ValueError):
    """A launch that cannot start: unknown kernel, bad grid, block or shared size."""


class KernelError(Finding):
    """A launch that started and failed. `kernel` names it; `block` and `thread`
    are the (x, y, z) indices involved, when known."""

    def __init__(
        self,
        message: str,
        kernel: str,
        block: tuple[int, int, int] | None = None,
        thread: tuple[int, int, int] | None = None,
    ) -> None:
        super().__init__(message)
        self.kernel = kernel
        self.block = block
        self.thread = thread


@dataclass(frozen=True)
class WaitSite:
    """A barrier or warp operation that threads wait at in a divergent block."""

    operation: str  # e.g. "__syncthreads()"
    file: str
    line: int
    threads: int  # how many threads wait there
    first_thread: int  # lowest linear thread index among them

    def __str__(self) -> str:
        return f"{self.operation} at {self.file}:{self.line}"


class BarrierDivergence(KernelError):
    """Threads of a block wait at different barriers or warp operations, or for
    threads that have exited. `sites` lists where they wait."""

    def __init__(
        self,
        message: str,
        kernel: str,
        block: tuple[int, int, int] | None,
        sites: list[WaitSite],
        exited: bool,
    ) -> None:
        super().__init__(message, kernel, block)
        self.sites = sites
        self.exited = exited


class KernelTimeout(KernelError):
    """The launch ran past its time limit (`limit`, seconds) and was stopped."""

    def __init__(
        self, message: str, kernel: str, block: tuple[int, int, int] | None, limit: float
    ) -> None:
        super().__init__(message, kernel, block)
        self.limit = limit


class OutOfBounds(KernelError):
    """An access past the bounds of an argument array or of dynamic shared memory.

    `argument` is the parameter name (or "dynamic shared memory"), `index` the
    element (negative: before the start), `length` the number of elements,
    `write` whether the access was a write, `location` the source file:line of
    the access when it could be found.
    """

    def __init__(
        self,
        message: str,
        kernel: str,
        block: tuple[int, int, int] | None,
        thread: tuple[int, int, int] | None,
        argument: str,
        index: int,
        length: int,
        write: bool,
        location: str | None,
    ) -> None:
        super().__init__(message, kernel, block, thread)
        self.argument = argument
        self.index = index
        self.length = length
        self.write = write
        self.location = location


class KernelCrash(KernelError):
    """The kernel died of a signal that is not an argument bounds fault:
    `signal_name` (e.g. "SIGSEGV", "SIGFPE", "SIGABRT"), `location` as above."""

    def __init__(
        self,
        message: str,
        kernel: str,
        block: tuple[int, int, int] | None,
        thread: tuple[int, int, int] | None,
        signal_name: str,
        location: str | None,
    ) -> None:
        super().__init__(message, kernel, block, thread)
        self.signal_name = signal_name
        self.location = location
