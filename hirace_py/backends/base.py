"""What the checker needs from an execution backend, whichever it is.

A backend compiles instrumented source into a `DeviceModule`, gives out
device buffers, writes the runtime state variable and launches kernels. The
checker (`hirace_py.check`) is written against these protocols only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from hirace_py.launch_config import LaunchConfig

if TYPE_CHECKING:
    from hirace_py.instrument.model import Kernel, Param


class Buffer(Protocol):
    """Device memory: its address as device code sees it, and host access."""

    address: int
    nbytes: int

    def read(self) -> np.ndarray:
        """The buffer's bytes as a uint8 host array (a copy or a view)."""

    def write(self, data: np.ndarray) -> None:
        """Copy host data (any dtype, at most nbytes) to the start of the buffer."""

    def zero(self) -> None: ...


@dataclass(frozen=True)
class KernelSignature:
    """What a backend needs to know of a kernel: its name, the symbol a compiler finds
    it by, and its parameters' C types (for converting scalar arguments). Backends
    take these, not the instrumentation's tables."""

    name: str
    symbol: str
    """The qualified name (`ns::k`), by which NVRTC looks the kernel up."""
    param_types: tuple[tuple[str, str], ...]
    """(name, C type) of each parameter, in order."""


def signatures(kernels: Sequence[Kernel]) -> dict[str, KernelSignature]:
    """The launchable kernels' signatures by name (templates have no symbol until
    instantiated: they are left out)."""
    return {k.name: KernelSignature(k.name, k.qualified or k.name,
                                    tuple((p.name, p.type) for p in k.params))
            for k in kernels if not k.template}  # fmt: skip


@dataclass(frozen=True)
class LaunchTiming:
    """Seconds the grid ran, measured by the backend (events on a GPU)."""

    seconds: float
    stdout: str = ""


class DeviceModule(Protocol):
    backend: str

    def alloc(self, nbytes: int) -> Buffer:
        """Zero-filled device memory."""

    def upload(self, array: np.ndarray) -> Buffer:
        """A device copy of a kernel argument array, typed like it."""

    def download(self, buffer: Buffer, out: np.ndarray) -> None:
        """Copy a buffer made by `upload` back into the host array `out`."""

    def global_address(self, name: str) -> int: ...

    def global_size(self, name: str) -> int | None: ...

    def write_global(self, name: str, data: bytes) -> None: ...

    def launch(
        self, kernel: str, config: LaunchConfig, args: Sequence[object], echo: bool = True
    ) -> LaunchTiming:
        """Run a kernel as `config` says; pointer arguments are Buffers, the rest scalars.

        `echo=False` keeps the kernel's printf output off this process's
        stdout (replays print nothing the first run did not).
        """


def upload_arguments(
    module: DeviceModule, params: Sequence[Param], args: Sequence[object]
) -> tuple[dict[str, Buffer], list[object]]:
    """Device copies of the array arguments: the buffers by parameter name, and the
    arguments as the kernel takes them (buffers for arrays, scalars as given)."""
    buffers: dict[str, Buffer] = {}
    device_args: list[object] = []
    for p, a in zip(params, args, strict=True):
        if isinstance(a, np.ndarray):
            buffers[p.name] = module.upload(a)
            device_args.append(buffers[p.name])
        else:
            device_args.append(a)
    return buffers, device_args
