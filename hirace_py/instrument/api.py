"""`instrument()`: CUDA source in, instrumented source and host tables out."""

from __future__ import annotations

import os
from dataclasses import dataclass

from hirace_py.config import Config
from hirace_py.instrument import edits
from hirace_py.instrument.analyze import Planner
from hirace_py.instrument.model import Tables
from hirace_py.instrument.parse import parse
from hirace_py.instrument.runtime import HEADER_NAME


@dataclass(frozen=True)
class Instrumented:
    """Instrumented source plus what the host needs to run it and read reports."""

    source: str
    tables: Tables
    filename: str


class StrictError(Exception):
    """Raised by `instrument(strict=True)` when the rewriter had warnings."""


def instrument(
    source: str,
    filename: str = "kernel.cu",
    config: Config | None = None,
    include_dirs: list[str] | None = None,
    defines: dict[str, str | int | None] | None = None,
) -> Instrumented:
    """Rewrite every kernel and device function of `source` to check for races.

    The result includes the runtime header by name (`hirace_runtime.cuh`): put
    `hirace_py.instrument.runtime.write_include_dir(...)` on the include path.
    Line numbers in the output map to `filename` through #line directives.
    """
    config = config or Config()
    parsed = parse(source, filename, include_dirs, defines)
    planner = Planner(parsed, config.instrument_kernel)
    planner.run()
    body = edits.apply(parsed.source, planner.file_edits).decode()
    display = os.path.basename(filename)
    text = f'#include "{HEADER_NAME}"\n#line 1 "{display}"\n{body}'
    return Instrumented(text, planner.tables, filename)
