"""The CuPy backend as a `DeviceModule`: NVRTC-compiled kernels on a CUDA GPU.

Needs CuPy (`pip install '.[gpu]'`) and a GPU; importing this module without
CuPy raises ImportError, which `hirace_py.backends.select` turns into a
clear message. Sources are compiled by `hirace_py.backends.nvrtc` (the same
function CI checks every kernel with) for the device's architecture, and the
binary is loaded with CuPy.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Sequence

import cupy as cp  # type: ignore[import-not-found]
import numpy as np

from hirace_py.backends import nvrtc
from hirace_py.backends.base import LaunchTiming
from hirace_py.cache import cache_root
from hirace_py.instrument.model import Tables

STATE_SYMBOL = "hirace_state"
SCALARS = {
    "bool": np.bool_, "char": np.int8, "signed char": np.int8, "unsigned char": np.uint8,
    "short": np.int16, "unsigned short": np.uint16, "int": np.int32, "unsigned int": np.uint32,
    "unsigned": np.uint32, "long": np.int64, "unsigned long": np.uint64, "long long": np.int64,
    "unsigned long long": np.uint64, "size_t": np.uint64, "float": np.float32,
    "double": np.float64, "int8_t": np.int8, "uint8_t": np.uint8, "int16_t": np.int16,
    "uint16_t": np.uint16, "int32_t": np.int32, "uint32_t": np.uint32, "int64_t": np.int64,
    "uint64_t": np.uint64,
}  # fmt: skip


def scalar_dtype(c_type: str) -> type:
    """NumPy type of a scalar kernel parameter from its C spelling."""
    base = re.sub(r"\b(const|volatile|__restrict__|__restrict)\b", "", c_type)
    base = " ".join(base.split())
    if base not in SCALARS:
        raise TypeError(f"scalar parameter type {c_type!r} is not supported on the CuPy backend")
    return SCALARS[base]


class CupyBuffer:
    """A CuPy device array; `address` is its device pointer."""

    def __init__(self, array: cp.ndarray) -> None:
        self.array = array
        self.address = int(array.data.ptr)
        self.nbytes = int(array.nbytes)

    def read(self) -> np.ndarray:
        return cp.asnumpy(self.array).view(np.uint8).ravel()

    def write(self, data: np.ndarray) -> None:
        raw = np.ascontiguousarray(data).view(np.uint8).ravel()
        self.array.view(cp.uint8).ravel()[: raw.size] = cp.asarray(raw)

    def zero(self) -> None:
        self.array.fill(0)


class CupyModule:
    """Instrumented source compiled by `nvrtc.compile_module`, loaded into a cupy.RawModule."""

    backend = "cupy"

    def __init__(self, source: str, filename: str, include_dirs: list[str], tables: Tables) -> None:
        self.tables = tables
        arch = f"sm_{cp.cuda.Device().compute_capability}"
        dirs = [*include_dirs, os.path.dirname(os.path.abspath(filename))]
        compiled = nvrtc.compile_module(source, filename, dirs, arch, nvrtc.kernel_names(tables))
        self.symbols = compiled.lowered
        digest = hashlib.sha256(compiled.binary).hexdigest()[:24]
        binary = cache_root() / "cupy" / f"{digest}.{compiled.kind}"
        if not binary.exists():
            binary.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=binary.parent, delete=False) as f:
                f.write(compiled.binary)
            os.replace(f.name, binary)
        self.module = cp.RawModule(path=str(binary))

    def alloc(self, nbytes: int) -> CupyBuffer:
        return CupyBuffer(cp.zeros(max(nbytes, 1), cp.uint8)[:nbytes])

    def upload(self, array: np.ndarray) -> CupyBuffer:
        return CupyBuffer(cp.asarray(np.ascontiguousarray(array).ravel()))

    def download(self, buffer: CupyBuffer, out: np.ndarray) -> None:
        out[...] = cp.asnumpy(buffer.array).reshape(out.shape)

    def global_address(self, name: str) -> int:
        return int(self.module.get_global(name).ptr)

    def global_size(self, name: str) -> int | None:
        return int(self.module.get_global(name).mem.size)

    def write_global(self, name: str, data: bytes) -> None:
        ptr = self.module.get_global(name)
        host = np.frombuffer(bytes(data), np.uint8)
        ptr.copy_from_host(host.ctypes.data, host.nbytes)

    def launch(
        self,
        kernel: str,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        args: Sequence[object],
        shared_bytes: int,
        seed: int,
        schedule: str,
        echo: bool = True,
        exited_threads: str = "arrive",
    ) -> LaunchTiming:
        """Launch and time with CUDA events.

        Seed, schedule and exited_threads do not apply on a GPU: the hardware
        schedules, and exited threads count as arrived at barriers.
        """
        fn = self.module.get_function(self.symbols.get(kernel, kernel))
        if shared_bytes > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = shared_bytes
        params = self.tables.kernel(kernel).params
        converted = [
            a.array if isinstance(a, CupyBuffer) else scalar_dtype(p.type)(a)
            for p, a in zip(params, args, strict=True)
        ]
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn(grid, block, tuple(converted), shared_mem=shared_bytes)
        end.record()
        end.synchronize()
        return LaunchTiming(cp.cuda.get_elapsed_time(start, end) / 1000.0)
