"""CUDA headers that user code includes and hirace stands in for.

Everything CUDA's own headers would declare comes from hirace's instead: the
parse prelude when libclang parses, the CPU runtime when g++ compiles for the
CPU backend. The list is the catalogue's (hirace_py/cuda_api.toml), so parsing
and compiling accept the same includes; a header of something hirace does not
support stands in as an #error naming it.
"""

from __future__ import annotations

from pathlib import Path

from hirace_py import cuda_api
from hirace_py.cache import write_if_changed

# CUDA's own headers (empty stand-ins); write_stand_ins also writes those of
# unsupported libraries, which #error.
CUDA_HEADERS = cuda_api.catalogue().stand_in_headers


def write_stand_ins(directory: Path, comment: str, real: tuple[str, ...] = ()) -> None:
    """Write a stand-in for every CUDA header under `directory` (but for the
    GPU-only ones found in the directories `real`: cuda_api.stand_in_headers)."""
    for name, text in cuda_api.stand_in_headers(real).items():
        write_if_changed(directory / name, f"#pragma once\n// {comment}\n{text}")
