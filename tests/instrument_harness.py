"""Shared machinery for the instrumentation corpus tests.

A corpus case is a kernel file plus launches in `tests/instrument_corpus/
manifest.toml` (the launch schema of docs/launch-spec.md, as `[[case]]`
tables with `name` and `file`). The differential check runs the original
and the instrumented source on the CPU backend with identical inputs and
requires identical outputs.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hirace_py.backends import cpu
from hirace_py.backends.cpu_errors import LaunchError
from hirace_py.checker import include_dir
from hirace_py.instrument import Instrumented, instrument
from hirace_py.instrument.state import State
from hirace_py.launchspec import LaunchSpec, load_toml, parse_launch
from hirace_py.tracking import STATE_SYMBOL

CORPUS = Path(__file__).parent / "instrument_corpus"


@dataclass(frozen=True)
class Case:
    name: str
    file: Path
    launch: LaunchSpec


@functools.cache
def cases() -> tuple[Case, ...]:
    doc = load_toml(CORPUS / "manifest.toml")
    out = []
    for i, raw in enumerate(doc["case"]):
        where = f"manifest.toml: case[{i}]"
        launch = parse_launch(raw, where, CORPUS, extra={"name", "file", "description"})
        out.append(Case(raw["name"], CORPUS / raw["file"], launch))
    return tuple(out)


@functools.cache
def instrumented(path: Path) -> Instrumented:
    return instrument(path.read_text(), str(path))


@functools.cache
def original_module(path: Path) -> cpu.Module:
    return cpu.compile(path.read_text(), filename=str(path))


@functools.cache
def instrumented_module(path: Path) -> cpu.Module:
    return cpu.compile(instrumented(path).source, include_dirs=[include_dir()], filename=str(path))


def untracked(module: cpu.Module) -> None:
    """Zero an instrumented module's `hirace_state` (tracking off) before a raw launch.

    A module compiled from the same source as a `Checker`'s is the same loaded
    library, so it would otherwise see the state (and shadow pointers) the
    checker's last launch left behind.
    """
    try:
        module.global_address(STATE_SYMBOL)
    except LaunchError:
        return
    module.write_global(STATE_SYMBOL, bytes(State()))


def run(module: cpu.Module, case: Case) -> list[object]:
    """Launch with fresh inputs built from the spec; return the arguments after."""
    params = instrumented(case.file).tables.kernel(case.launch.kernel).params
    args = case.launch.build_args(params, case.name)
    spec = case.launch
    untracked(module)
    module.run(spec.kernel, spec.config, args)
    return args


def nvcc_compile(source: str, name: str, workdir: Path) -> subprocess.CompletedProcess[str]:
    """`nvcc -c -arch=sm_80` on instrumented source (the runtime header on the path)."""
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    path = workdir / f"{name}.hirace.cu"
    path.write_text(source)
    return subprocess.run(
        [nvcc, "-c", "-arch=sm_80", "-std=c++17", "-I", include_dir(),
         "-o", str(path.with_suffix(".o")), str(path)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray):
        return (
            isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and np.array_equal(a, b, equal_nan=True)
        )
    return a == b
