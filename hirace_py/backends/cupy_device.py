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
from collections.abc import Sequence

import cupy as cp  # type: ignore[import-not-found]
import numpy as np

from hirace_py.arguments import scalar_dtype
from hirace_py.backends import nvrtc
from hirace_py.backends.base import KernelSignature, LaunchTiming
from hirace_py.cache import build_once, cache_root
from hirace_py.errors import ArgumentMismatch, UnknownKernel
from hirace_py.launch_config import LaunchConfig

STATE_SYMBOL = "hirace_state"


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

    def __init__(
        self,
        source: str,
        filename: str,
        include_dirs: list[str],
        kernels: dict[str, KernelSignature],
        defines: dict[str, str | int | None] | None = None,
    ) -> None:
        self.kernels = kernels
        arch = f"sm_{cp.cuda.Device().compute_capability}"
        dirs = [*include_dirs, os.path.dirname(os.path.abspath(filename))]
        # -D as #define lines ahead of the source: its #line directives keep its lines.
        macros = "".join(f"#define {k} {'' if v is None else v}\n"
                         for k, v in (defines or {}).items())  # fmt: skip
        compiled = nvrtc.compile_module(macros + source, filename, dirs, arch,
                                        nvrtc.kernel_names(kernels))  # fmt: skip
        self.symbols = compiled.lowered
        digest = hashlib.sha256(compiled.binary).hexdigest()[:24]
        binary = cache_root() / "cupy" / f"{digest}.{compiled.kind}"
        build_once(binary, lambda scratch: scratch.write_bytes(compiled.binary))
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
        self, kernel: str, config: LaunchConfig, args: Sequence[object], echo: bool = True
    ) -> LaunchTiming:
        """Launch and time with CUDA events.

        The config's seed, schedule and exited_threads do not apply on a GPU:
        the hardware schedules, and exited threads count as arrived at barriers.
        """
        shared_bytes = config.shared_bytes
        fn = self.module.get_function(self.symbols.get(kernel, kernel))
        if shared_bytes > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = shared_bytes
        if kernel not in self.kernels:
            raise UnknownKernel(kernel, sorted(self.kernels))
        converted = []
        for (name, c_type), a in zip(self.kernels[kernel].param_types, args, strict=True):
            if isinstance(a, CupyBuffer):
                converted.append(a.array)
                continue
            dtype = scalar_dtype(c_type)
            if dtype is None:
                raise ArgumentMismatch(
                    f"kernel {kernel} parameter {name}: scalar type {c_type!r} is not "
                    "supported on the CuPy backend"
                )
            converted.append(dtype(a))
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn(config.grid, config.block, tuple(converted), shared_mem=shared_bytes)
        end.record()
        end.synchronize()
        return LaunchTiming(cp.cuda.get_elapsed_time(start, end) / 1000.0)
