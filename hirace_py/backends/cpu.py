"""The CPU backend: compile CUDA kernel source with g++ and launch it on NumPy
arrays, with CUDA's semantics for threads, barriers and warp operations.

    from hirace_py.backends import cpu
    mod = cpu.compile(source)                 # str of CUDA, as for nvcc
    mod.launch("saxpy", grid=64, block=256, args=[n, 2.0, x, y])

How it works (details in docs/cpu-backend.md): the source is compiled against
a runtime header that defines CUDA's built-ins; every CUDA thread runs as a
fiber, the threads of a block take turns on one OS thread and switch only at
barriers and warp operations, blocks run one after another. Launches are
deterministic for a given schedule and seed. By default each launch runs in a
forked child process, so faults, hangs and divergence become exceptions of
this module (all `HiraceError`s) instead of crashes or hangs of Python.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hirace_py.backends.cpu_args import ParamType, convert_arguments, parse_signature
from hirace_py.backends.cpu_build import BuildResult, build
from hirace_py.backends.cpu_errors import (
    BarrierDivergence,
    CompileError,
    KernelCrash,
    KernelError,
    KernelTimeout,
    LaunchError,
    OutOfBounds,
    WaitSite,
)
from hirace_py.backends.cpu_launch import (
    LaunchRequest,
    LaunchResult,
    check_abi,
    execute,
    source_line,
)
from hirace_py.backends.cpu_memory import shared_array
from hirace_py.backends.cpu_runtime import DEFAULT_STACK_KB, SHARED_LIMIT
from hirace_py.backends.cpu_source import KernelDecl
from hirace_py.launch_config import ExitedThreads, LaunchConfig, Schedule

__all__ = [
    "BarrierDivergence",
    "CompileError",
    "KernelCrash",
    "KernelError",
    "KernelTimeout",
    "LaunchError",
    "LaunchResult",
    "Module",
    "OutOfBounds",
    "WaitSite",
    "compile",
    "shared_array",
]

DEFAULT_TIMEOUT = 60.0
_GRID_LIMITS = (2**31 - 1, 65535, 65535)
_BLOCK_LIMITS = (1024, 1024, 64)
_checked_abi: set[Path] = set()


def compile(
    source: str,
    defines: dict[str, str | int | None] | None = None,
    include_dirs: list[str | os.PathLike[str]] | None = None,
    filename: str | None = None,
    extra_flags: list[str] | None = None,
) -> Module:
    """Compiles CUDA `source` into a module of launchable kernels.

    `defines` become -D flags (None: defined without a value); `include_dirs`
    are searched for #include; `filename` names the source in diagnostics and
    its directory is searched for `#include "..."`; `extra_flags` go to g++.
    Results are cached by a hash of everything that affects them. Raises
    CompileError with the compiler's message and the source line.
    """
    return Module(build(source, defines, include_dirs, filename, extra_flags))


@dataclass
class _Kernel:
    decl: KernelDecl
    entry: ctypes._CFuncPtr
    types: list[ParamType]


def _dims(value: object, what: str) -> tuple[int, int, int]:
    """Normalizes an int or 1-3 tuple of ints to (x, y, z)."""
    items = (value,) if isinstance(value, int) else value
    if (
        not isinstance(items, tuple | list)
        or not 1 <= len(items) <= 3
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in items)
    ):
        raise TypeError(f"{what} must be an int or a tuple of 1 to 3 ints, got {value!r}")
    return (*[int(v) for v in items], 1, 1)[:3]  # type: ignore[return-value]


def _check_limits(dims: tuple[int, int, int], what: str, limits: tuple[int, int, int]) -> None:
    """LaunchError unless every axis is within CUDA's limits."""
    for axis, (d, limit) in enumerate(zip(dims, limits, strict=True)):
        if not 1 <= d <= limit:
            raise LaunchError(f"{what}.{'xyz'[axis]} is {d}, it must be between 1 and {limit}")


def _timeout(timeout: float | None) -> float:
    if timeout is None:
        configured = os.environ.get("HIRACE_TIMEOUT")
        try:
            timeout = float(configured) if configured else DEFAULT_TIMEOUT
        except ValueError:
            raise LaunchError(f"HIRACE_TIMEOUT={configured!r} is not a number") from None
    if not timeout > 0:
        raise LaunchError(f"timeout must be a positive number of seconds, got {timeout!r}")
    return float(timeout)


def _stack_bytes() -> int:
    configured = os.environ.get("HIRACE_STACK_KB")
    if not configured:
        return DEFAULT_STACK_KB * 1024
    if not configured.isdigit() or int(configured) < 16:
        raise LaunchError(f"HIRACE_STACK_KB={configured!r}: expected a number of KiB >= 16")
    return int(configured) * 1024


class Module:
    """A compiled kernel source: launch its kernels, access its globals."""

    def __init__(self, result: BuildResult) -> None:
        self._build = result
        self.filename = result.filename
        if result.runtime.library not in _checked_abi:
            check_abi(result.runtime.library)
            _checked_abi.add(result.runtime.library)
        self._lib = ctypes.CDLL(str(result.library))
        self._kernels: dict[str, list[KernelDecl]] = {}
        for decl in result.unit.kernels:
            for name in {decl.name, decl.qualified}:
                self._kernels.setdefault(name, []).append(decl)
        self._loaded: dict[int, _Kernel] = {}

    @property
    def library(self) -> Path:
        """The compiled shared library."""
        return self._build.library

    @property
    def kernels(self) -> list[str]:
        """Names of the kernels that can be launched (qualified if in a namespace)."""
        return sorted({d.qualified for d in self._build.unit.kernels if self._entry(d) is not None})

    def _entry(self, decl: KernelDecl) -> ctypes._CFuncPtr | None:
        if decl.index < 0:
            return None
        try:
            return getattr(self._lib, f"hr_kernel_{decl.index}")
        except AttributeError:
            return None  # in an inactive #if branch

    def _kernel(self, name: str) -> _Kernel:
        if not isinstance(name, str):
            raise TypeError(f"kernel name must be a str, got {name!r}")
        decls = self._kernels.get(name, [])
        live = [d for d in decls if self._entry(d) is not None]
        if not live:
            if any(d.is_template for d in decls):
                raise LaunchError(
                    f"kernel `{name}` in {self.filename} is a template; the CPU backend "
                    "launches non-template kernels only (wrap the instantiation in one)"
                )
            known = ", ".join(self.kernels) or "none"
            raise LaunchError(f"no kernel `{name}` in {self.filename} (kernels: {known})")
        if len({d.qualified for d in live}) > 1:
            options = ", ".join(sorted({d.qualified for d in live}))
            raise LaunchError(f"kernel name `{name}` is ambiguous: {options}")
        decl = live[0]
        if decl.index not in self._loaded:
            entry = self._entry(decl)
            assert entry is not None
            entry.restype = ctypes.c_int64
            entry.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
            signature = getattr(self._lib, f"hr_kernel_{decl.index}_signature")
            signature.restype = ctypes.c_char_p
            types = parse_signature(signature().decode())
            self._loaded[decl.index] = _Kernel(decl, entry, types)
        return self._loaded[decl.index]

    def launch(
        self,
        name: str,
        grid: int | Sequence[int],
        block: int | Sequence[int],
        args: Sequence[object],
        shared_bytes: int = 0,
        seed: int = 0,
        schedule: Schedule | str = Schedule.inorder,
        timeout: float | None = None,
        isolate: bool = True,
        exited_threads: ExitedThreads | str = ExitedThreads.error,
        echo: bool = True,
    ) -> LaunchResult:
        """Runs kernel `name` on a grid of `grid` blocks of `block` threads.

        `args` follow the kernel's parameters: NumPy arrays for pointers (updated
        in place), Python or NumPy scalars for the rest; a mismatch is a
        TypeError naming the parameter. `shared_bytes` sizes `extern __shared__`
        memory. `schedule` and `exited_threads` are `launch_config.Schedule` and
        `ExitedThreads` members or their names; `seed` seeds the random
        schedule. See `run` for `timeout`, `isolate` and `echo`.
        """
        try:
            config = LaunchConfig(
                _dims(grid, "grid"), _dims(block, "block"), shared_bytes, seed,
                Schedule.parse(schedule, "schedule"),
                ExitedThreads.parse(exited_threads, "exited_threads"),
            )  # fmt: skip
        except ValueError as exc:
            raise LaunchError(str(exc)) from None
        return self.run(name, config, args, timeout, isolate, echo)

    def run(
        self,
        name: str,
        config: LaunchConfig,
        args: Sequence[object],
        timeout: float | None = None,
        isolate: bool = True,
        echo: bool = True,
    ) -> LaunchResult:
        """Runs kernel `name` as `config` says, checking CUDA's limits (LaunchError).

        `timeout` (seconds; default $HIRACE_TIMEOUT or 60) stops a launch that
        runs too long. `isolate=False` runs in this process: less overhead, but
        no protection from faults and no bounds checks (see
        docs/cpu-backend.md). `echo=False` keeps printf output off sys.stdout
        (it is still returned).
        """
        kernel = self._kernel(name)
        converted = convert_arguments(kernel.decl.qualified, kernel.decl.params, kernel.types, args)
        shared_bytes, seed = config.shared_bytes, config.seed
        if not isinstance(shared_bytes, int) or not 0 <= shared_bytes <= SHARED_LIMIT:
            raise LaunchError(
                f"shared_bytes must be an int between 0 and {SHARED_LIMIT}, got {shared_bytes!r}"
            )
        if not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise LaunchError(f"seed must be an int in [0, 2**64), got {seed!r}")
        _check_limits(config.grid, "grid", _GRID_LIMITS)
        _check_limits(config.block, "block", _BLOCK_LIMITS)
        if config.threads_per_block > 1024:
            raise LaunchError(
                f"block has {config.threads_per_block} threads, at most 1024 are allowed"
            )
        request = LaunchRequest(
            kernel=kernel.decl.qualified,
            config=config,
            timeout=_timeout(timeout),
            isolate=bool(isolate),
            stack_bytes=_stack_bytes(),
            echo=bool(echo),
        )
        library, display = self._build.library, self.filename
        return execute(
            kernel.entry, request, converted, lambda ip: source_line(ip, library, display)
        )

    def _global(self, name: str) -> tuple[int, int | None]:
        for g in self._build.unit.globals:
            if name in (g.name, g.qualified):
                try:
                    accessor = getattr(self._lib, f"hr_global_{g.index}")
                except AttributeError:
                    continue
                accessor.restype = ctypes.c_void_p
                size = ctypes.c_size_t()
                address = accessor(ctypes.byref(size))
                return int(address), int(size.value)
        try:
            return ctypes.addressof(ctypes.c_char.in_dll(self._lib, name)), None
        except ValueError:
            raise LaunchError(
                f"no __device__ or __constant__ variable `{name}` in {self.filename}"
            ) from None

    def global_address(self, name: str) -> int:
        """Address of a `__device__`/`__constant__` variable in this process
        (the same in launch child processes, which inherit it)."""
        return self._global(name)[0]

    def global_size(self, name: str) -> int | None:
        """sizeof of a `__device__`/`__constant__` variable, if known."""
        return self._global(name)[1]

    def write_global(self, name: str, data: bytes) -> None:
        """Writes `data` to the start of a `__device__`/`__constant__` variable
        (like cudaMemcpyToSymbol); seen by later launches."""
        address, size = self._global(name)
        data = bytes(data)
        if size is not None and len(data) > size:
            raise LaunchError(f"`{name}` has {size} bytes, cannot write {len(data)}")
        ctypes.memmove(address, data, len(data))

    def read_global(self, name: str, nbytes: int) -> bytes:
        """Reads the first `nbytes` of a `__device__`/`__constant__` variable.
        Writes by isolated launches happen in their child process: share data
        through `shared_array` memory to see it here."""
        address, size = self._global(name)
        if size is not None and nbytes > size:
            raise LaunchError(f"`{name}` has {size} bytes, cannot read {nbytes}")
        return ctypes.string_at(address, nbytes)
