"""The CPU backend as a `DeviceModule`: buffers are shared-memory NumPy arrays."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hirace_py.backends import cpu
from hirace_py.backends.base import LaunchTiming
from hirace_py.launch_config import LaunchConfig


class CpuBuffer:
    """A MAP_SHARED array: the launch's child process writes it in place.

    `typed` is the view passed to kernels (its dtype is checked against the
    parameter type); `read` gives the raw bytes.
    """

    def __init__(self, count: int, dtype: np.dtype) -> None:
        self.typed = cpu.shared_array(max(count, 1), dtype)[:count]
        self.address = int(self.typed.ctypes.data)
        self.nbytes = self.typed.nbytes

    def read(self) -> np.ndarray:
        return self.typed.view(np.uint8)

    def write(self, data: np.ndarray) -> None:
        raw = np.ascontiguousarray(data).view(np.uint8).ravel()
        self.typed.view(np.uint8)[: raw.size] = raw

    def zero(self) -> None:
        self.typed.view(np.uint8)[:] = 0


class CpuModule:
    """Instrumented (or plain) source compiled by the CPU backend."""

    backend = "cpu"

    def __init__(
        self,
        source: str,
        filename: str,
        include_dirs: list[str],
        defines: dict[str, str | int | None] | None = None,
    ) -> None:
        self.module = cpu.compile(source, defines, include_dirs=include_dirs, filename=filename)

    def alloc(self, nbytes: int) -> CpuBuffer:
        return CpuBuffer(nbytes, np.dtype(np.uint8))

    def upload(self, array: np.ndarray) -> CpuBuffer:
        buffer = CpuBuffer(array.size, array.dtype)
        buffer.typed[...] = array.ravel()
        return buffer

    def download(self, buffer: CpuBuffer, out: np.ndarray) -> None:
        out[...] = buffer.typed.reshape(out.shape)

    def global_address(self, name: str) -> int:
        return self.module.global_address(name)

    def global_size(self, name: str) -> int | None:
        return self.module.global_size(name)

    def write_global(self, name: str, data: bytes) -> None:
        self.module.write_global(name, data)

    def launch(
        self, kernel: str, config: LaunchConfig, args: Sequence[object], echo: bool = True
    ) -> LaunchTiming:
        converted = [a.typed if isinstance(a, CpuBuffer) else a for a in args]
        result = self.module.run(kernel, config, converted, echo=echo)
        return LaunchTiming(result.seconds, result.stdout)
