"""The suites' host driver, reproduced in Python, and one code's runs.

For each input graph the driver (docs/semantics.md section 5, the mini-suite's
`indigo_cuda.h`) allocates data1 and data2 with max(nodes, edges) elements
(edges taken as 1 when the graph has none), sets element 0 of each to 0, then
data1[i] = rand() % nodes for every i >= 1, then data2[i] = rand() % edges,
with the C library's `rand()` from its default seed (here: libc's `srand(1)`
then `rand()` through ctypes, so the values are the C library's own), converts
them to the code's `data_t`, launches `test_kernel<<<blocks, threads>>>(nindex,
nlist, data1, data2, nodes)` once and compares with `serial_code`. nlist has
max(edges, 1) elements, as the driver allocates it. An `Input` holds the graph
and the initial values, built once per input and shared by every code.

`CodeRunner` instruments and compiles one code once and runs it on each input.
Launches let exited threads count as arrived at barriers
(`exited_threads="arrive"`, what current NVIDIA GPUs do): Indigo codes may
`return` before a `__syncthreads`.

Out-of-bounds accesses: the CPU backend stops a launch at the first access
past an argument array and names the argument and element. That is recorded
as a bounds finding (not a race, not an error) and the launch is repeated with
that argument padded by zeros past its end, as memory past a small GPU
allocation is readable, so races elsewhere in the code are still found; at
most `MAX_BOUNDS` findings per run. Every other failure is an error row.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import hashlib
import io
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from hirace_py.backends.cpu_errors import OutOfBounds
from hirace_py.checker import Checker
from hirace_py.config import Config
from hirace_py.errors import HiraceError, ToolFailure
from hirace_py.indigo import serial
from hirace_py.indigo.ecl import Graph, read_ecl
from hirace_py.indigo.results import RunResult
from hirace_py.indigo.stub import redirect
from hirace_py.indigo.suite import Code
from hirace_py.report import LaunchReport, Race
from hirace_py.values.checker import ValuesChecker
from hirace_py.values.engines import BothChecker, make_checker

KERNEL = "test_kernel"
MAX_BOUNDS = 4
PAD_BYTES = 256
"""Padding beyond the faulting element, per retry (cudaMalloc's alignment)."""

_libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
_libc.rand.restype = ctypes.c_int
_libc.srand.argtypes = [ctypes.c_uint]


def libc_rand(count: int) -> np.ndarray:
    """The first `count` values of the C library's `rand()` after `srand(1)`
    (the sequence a program gets without calling srand), as int64."""
    _libc.srand(1)
    rand = _libc.rand
    return np.fromiter((rand() for _ in range(count)), dtype=np.int64, count=count)


def initial_values(nodes: int, edges: int) -> tuple[np.ndarray, np.ndarray]:
    """data1 and data2 as the driver initialises them, as int64 values."""
    edges = max(edges, 1)
    size = max(nodes, edges)
    r = libc_rand(2 * (size - 1))
    data1 = np.zeros(size, np.int64)
    data2 = np.zeros(size, np.int64)
    data1[1:] = r[: size - 1] % nodes
    data2[1:] = r[size - 1 :] % edges
    return data1, data2


@dataclass(frozen=True)
class Input:
    """One input graph, with the driver's arrays (built once, shared by all codes)."""

    name: str
    """As given on the command line."""
    sha: str
    """SHA-256 of the graph file: the input's key in the results."""
    nodes: int
    edges: int
    nindex: np.ndarray
    nlist: np.ndarray
    """max(edges, 1) elements, as the driver allocates nlist."""
    values1: np.ndarray
    values2: np.ndarray

    def arrays(self, dtype: np.dtype) -> list[np.ndarray]:
        """Fresh copies of nindex, nlist, data1 and data2 (converted to `dtype`,
        as the driver's `(data_t)(rand() % n)` does)."""
        return [self.nindex.copy(), self.nlist.copy(),
                self.values1.astype(dtype), self.values2.astype(dtype)]  # fmt: skip


def load_input(path: Path) -> Input:
    """Read an ECL graph and build the driver's arrays; HiraceError naming the
    file if it is missing, corrupt, or has no node (rand() % 0 is undefined)."""
    graph: Graph = read_ecl(path)
    if graph.nodes < 1:
        raise HiraceError(f"{path}: the graph has no node; the Indigo driver needs at least one")
    nlist = np.zeros(max(graph.edges, 1), np.int32)
    nlist[: graph.edges] = graph.nlist
    values1, values2 = initial_values(graph.nodes, graph.edges)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    return Input(str(path), sha, graph.nodes, graph.edges, graph.nindex.copy(), nlist,
                 values1, values2)  # fmt: skip


@dataclass(frozen=True)
class Settings:
    """The launch configuration every code of a run gets."""

    threads: int
    blocks: int
    backend: str
    """A concrete backend ('cpu' or 'cupy')."""
    config: Config
    engine: str = "fsm"
    """The race engine (hirace_py.values.engines): "fsm", "values" or "both"."""


def _race_json(race: Race) -> dict:
    return {**race.to_json(), "lines": list(race.lines())}


def _bounds_json(exc: OutOfBounds) -> dict:
    line = None
    if exc.location and exc.location.rpartition(":")[2].isdigit():
        line = int(exc.location.rpartition(":")[2])
    return {"argument": exc.argument, "index": exc.index, "length": exc.length,
            "write": exc.write, "line": line, "message": str(exc)}  # fmt: skip


def _why(exc: BaseException) -> str:
    """A one-paragraph reason: the message of hirace's own errors, the type too
    for anything else (which is a bug in hirace or in the code's setup)."""
    text = str(exc).strip() or type(exc).__name__
    return text if isinstance(exc, HiraceError) else f"{type(exc).__name__}: {text}"


class CodeRunner:
    """One code, instrumented, compiled and host-built once; `run` per input.

    Guarantees: `run` never raises for a problem of the code (it returns an
    error row with the reason); `compile_s` is charged to the first run only.
    """

    def __init__(self, code: Code, settings: Settings) -> None:
        self.code = code
        self.settings = settings
        self.checker: Checker | ValuesChecker | BothChecker | None = None
        self.error = ""
        self.host: serial.HostLibrary | None = None
        self.host_error = ""
        start = time.perf_counter()
        try:
            if code.labels.unknown:
                tags = ", ".join(code.labels.unknown)
                raise HiraceError(f"unknown bug tag(s) {tags} in the file name: cannot tell "
                                  "what the code should contain")  # fmt: skip
            dtype = code.dtype
            self.checker = make_checker(settings.engine, redirect(code.source, "kernel"),
                                        str(code.path), settings.config,
                                        settings.backend)  # fmt: skip
        # One code failing to instrument or compile, for whatever reason, is
        # that code's error row; it must not stop the suite. A tool failure (no
        # compiler) would fail every code alike: it stops the suite, and no row
        # is stored for a rerun to reuse.
        except ToolFailure:
            raise
        except Exception as exc:
            self.error = _why(exc)
        if not self.error:
            try:
                self.host = serial.build(code)
                found = self.host.data_type()
                if not found.matches(dtype):
                    self.host = None
                    self.host_error = (f"data_t `{code.data_t}` read as {dtype}, but the compiled "
                                       f"code has {found}")  # fmt: skip
            except Exception as exc:
                self.host_error = _why(exc)
        self.compile_s = time.perf_counter() - start

    def run(self, data: Input) -> RunResult:
        """Launch the code on one input and compare with serial_code."""
        start = time.perf_counter()
        row = RunResult(
            code=self.code.rel, code_sha=self.code.sha, input=data.name, input_sha=data.sha,
            expected_racy=self.code.labels.racy, expected_bounds=self.code.labels.bounds,
            compile_s=self.compile_s,
        )  # fmt: skip
        self.compile_s = 0.0
        if self.checker is None:
            row.error = self.error
        else:
            try:
                self._launch(data, row)
            except ToolFailure:
                raise
            except Exception as exc:
                row.error = _why(exc)
        row.run_s = time.perf_counter() - start
        return row

    def _launch(self, data: Input, row: RunResult) -> None:
        assert self.checker is not None
        dtype = self.code.dtype
        params = [p.name for p in self.checker.tables.kernel(KERNEL).params]
        initial = data.arrays(dtype)
        if len(params) != 5:
            raise HiraceError(f"test_kernel takes {len(params)} parameters "
                              f"({', '.join(params)}); the Indigo driver passes 5")  # fmt: skip
        pads = [0] * len(initial)
        while True:
            args: list[object] = [np.concatenate([a, np.zeros(pad, a.dtype)]) if pad else a.copy()
                                  for a, pad in zip(initial, pads, strict=True)]  # fmt: skip
            args.append(data.nodes)
            try:
                # The kernel's printf output is the program's, not the report's:
                # it must not mix into the summary on stdout.
                with contextlib.redirect_stdout(io.StringIO()):
                    launch = self.checker.launch(
                        KERNEL, self.settings.blocks, self.settings.threads, args,
                        exited_threads="arrive",
                    )  # fmt: skip
                break
            except OutOfBounds as exc:
                row.bounds.append(_bounds_json(exc))
                if exc.argument not in params[:4] or exc.index < 0:
                    raise HiraceError(f"{exc}; the run cannot continue past it") from None
                if len(row.bounds) >= MAX_BOUNDS:
                    raise HiraceError(f"{MAX_BOUNDS} out-of-bounds accesses; last: {exc}") from None
                i = params.index(exc.argument)
                over = exc.index + 1 - initial[i].size
                pads[i] = max(pads[i], over + PAD_BYTES // initial[i].itemsize)
        self._record(launch, row)
        self._compare(data, args, initial, row)

    def _record(self, launch: LaunchReport, row: RunResult) -> None:
        row.races = [_race_json(r) for r in launch.races]
        row.notices = [asdict(n) for n in launch.notices]
        row.warnings = [str(w) for w in self.checker.tables.warnings] if self.checker else []

    def _compare(self, data: Input, args: list, initial: list[np.ndarray], row: RunResult) -> None:
        if self.host is None:
            row.serial_error = self.host_error
            return
        size = initial[2].size
        results = (args[2][:size], args[3][:size])
        try:
            row.differs = self.host.differs(
                initial[0], initial[1], results, (initial[2], initial[3]), data.nodes
            )
        except serial.SerialError as exc:
            row.serial_error = str(exc)
