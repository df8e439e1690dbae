"""`instrument()`: CUDA source in, instrumented source and host tables out."""

from __future__ import annotations

import os
from dataclasses import dataclass

from hirace_py.config import Config
from hirace_py.instrument import edits
from hirace_py.instrument.analyze import Planner
from hirace_py.instrument.host import HostPlanner, unit_tables
from hirace_py.instrument.model import Tables
from hirace_py.instrument.parse import parse
from hirace_py.instrument.runtime import HEADER_NAME


@dataclass(frozen=True)
class Instrumented:
    """Instrumented source plus what the host needs to run it and read reports."""

    source: str
    tables: Tables
    filename: str
    program: bool = False
    """True when host code launches kernels or allocates device memory: the
    output then carries its own tables and reports races itself at exit."""


class StrictError(Exception):
    """Raised by `instrument(strict=True)` when the rewriter had warnings."""


def instrument(
    source: str,
    filename: str = "kernel.cu",
    config: Config | None = None,
    include_dirs: list[str] | None = None,
    defines: dict[str, str | int | None] | None = None,
    target: str = "gpu",
    program: bool = False,
) -> Instrumented:
    """Rewrite every kernel and device function of `source` to check for races.

    The result includes the runtime header by name (`hirace_runtime.cuh`): put
    `hirace_py.instrument.runtime.include_dir()` on the include path.
    Line numbers in the output map to `filename` through #line directives.
    For a whole program (host code that launches kernels or allocates device
    memory), allocations and launches are hooked as hirace_py.instrument.host
    describes; `target="cpu"` also turns launches into CPU-backend calls.
    """
    if target not in ("gpu", "cpu"):
        raise ValueError(f"target must be 'gpu' or 'cpu', got {target!r}")
    config = config or Config()
    parsed = parse(source, filename, include_dirs, defines)
    planner = Planner(parsed, config.instrument_kernel)
    planner.run()
    host = HostPlanner(planner, target)
    program = host.run() or program
    display = os.path.basename(filename)
    file_edits = planner.file_edits + (host.edits if program else [])
    body = edits.apply(parsed.source, file_edits).decode()
    if not program:
        text = f'#include "{HEADER_NAME}"\n#line 1 "{display}"\n{body}'
        return Instrumented(text, planner.tables, filename)
    head = (f'#define HIRACE_PROGRAM 1\n#include "{HEADER_NAME}"\n'
            "static hirace::host::Unit& hirace_unit();\n")  # fmt: skip
    tail = unit_tables(planner.tables, display, host.device_symbols())
    text = f'{head}#line 1 "{display}"\n{body}\n#line 1 "hirace-generated"{tail}'
    return Instrumented(text, planner.tables, filename, program=True)
