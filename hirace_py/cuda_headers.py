"""CUDA headers that user code includes and hirace stands in for with empty files.

Everything they would declare comes from hirace's own headers instead: the
parse prelude when libclang parses, the CPU runtime when g++ compiles for the
CPU backend. One list, so parsing and compiling accept the same includes.
"""

from __future__ import annotations

from pathlib import Path

CUDA_HEADERS = (
    "cuda.h",
    "cuda_runtime.h",
    "cuda_runtime_api.h",
    "cuda_profiler_api.h",
    "cuda_device_runtime_api.h",
    "device_launch_parameters.h",
    "device_functions.h",
    "device_atomic_functions.h",
    "driver_types.h",
    "math_functions.h",
    "sm_20_atomic_functions.h",
    "sm_30_intrinsics.h",
    "sm_32_intrinsics.h",
    "sm_60_atomic_functions.h",
    "vector_types.h",
    "vector_functions.h",
    "crt/host_defines.h",
)


def write_stand_ins(directory: Path, comment: str) -> None:
    """Write an empty stand-in for every CUDA header under `directory`."""
    for name in CUDA_HEADERS:
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_text(f"#pragma once\n// {comment}\n")
