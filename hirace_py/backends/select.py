"""Where checks run: pick and open a backend for kernels ('cpu', 'cupy', or
'auto': CuPy when a GPU is usable), and whether whole programs can run on a GPU."""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

from hirace_py.backends.base import DeviceModule, KernelSignature
from hirace_py.errors import HiraceError, ToolFailure

BACKENDS = ("auto", "cpu", "cupy")


def cupy_status() -> tuple[bool, str]:
    """Whether CuPy imports and sees a CUDA device, and if not, why (one line)."""
    try:
        import cupy  # type: ignore[import-not-found]

        import hirace_py.backends.cupy_device  # noqa: F401
    except ImportError as exc:
        return False, f"needs CuPy ({exc}); install it with: pip install '.[gpu]'"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError, or a missing driver library
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return False, f"no usable CUDA device ({first})"
    if count < 1:
        return False, "no CUDA device is present"
    return True, f"{count} CUDA device(s) through CuPy"


def program_gpu_status() -> tuple[bool, str]:
    """Whether whole programs can be built with nvcc and run on a GPU here (a
    GPU and nvcc; CuPy is not needed), and if not, why (one line)."""
    if shutil.which("nvcc") is None:
        return False, "nvcc is not on PATH"
    smi = shutil.which("nvidia-smi")
    if smi is not None:
        try:
            out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20,
                                 check=False)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired):
            return False, "nvidia-smi did not answer"
        if out.returncode == 0 and "GPU" in out.stdout:
            return True, "a GPU is present"
        return False, "nvidia-smi lists no GPU"
    if Path("/dev/nvidia0").exists():
        return True, "a GPU device node is present"
    return False, "no GPU device is present"


@functools.cache
def gpu_usable() -> bool:
    """True when CuPy imports and sees a CUDA device (asked once per process)."""
    return cupy_status()[0]


def require(name: str) -> None:
    """A ToolFailure, one line, unless backend `name` can run here: for 'cupy', CuPy
    imports and sees a CUDA device (a driver and a GPU). A suite checks this once,
    before it runs (and stores) anything."""
    if name != "cupy":
        return
    usable, why = cupy_status()
    if not usable:
        raise ToolFailure(f"--backend cupy: {why}")


def resolve(name: str) -> tuple[str, str]:
    """The concrete backend for `name`, and a sentence saying why it was chosen;
    a ToolFailure for `cupy` where CuPy or a device is missing."""
    if name not in BACKENDS:
        raise HiraceError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    if name == "auto":
        if gpu_usable():
            return "cupy", "backend auto: a CUDA GPU is usable, running on it through CuPy"
        return "cpu", "backend auto: no usable CUDA GPU (or no CuPy), running on the CPU backend"
    require(name)
    return name, f"backend {name}"


def open_module(
    name: str,
    source: str,
    filename: str,
    include_dirs: list[str],
    kernels: dict[str, KernelSignature],
    defines: dict[str, str | int | None] | None = None,
) -> tuple[DeviceModule, bool]:
    """Compile `source` on backend `name` ('cpu' or 'cupy').

    Returns the module and whether the backend runs blocks one at a time
    (which lets shared-memory shadow frames be reused across blocks).
    """
    if name == "cpu":
        from hirace_py.backends.cpu_device import CpuModule

        return CpuModule(source, filename, include_dirs, defines), True
    require(name)
    from hirace_py.backends.cupy_device import CupyModule

    return CupyModule(source, filename, include_dirs, kernels, defines), False
