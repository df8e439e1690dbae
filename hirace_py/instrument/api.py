"""`instrument()`: CUDA source in, instrumented source and host tables out."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import clang.cindex as ci

import hirace_py
from hirace_py import source_text
from hirace_py.cache import cache_root, write_if_changed
from hirace_py.config import Config
from hirace_py.instrument import edits, gpu_only, groups
from hirace_py.instrument.analyze import Planner
from hirace_py.instrument.files import (
    HeaderCopy,
    SourceFile,
    base_macros,
    copy_path,
    include_edit,
    quote,
)
from hirace_py.instrument.host import HostPlanner, unit_tables
from hirace_py.instrument.host_access import HostAccessPlanner
from hirace_py.instrument.model import Tables, Warning
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
    headers: tuple[HeaderCopy, ...] = ()
    """Rewritten copies of the user headers (and included sources) the source
    reaches; the source's #include lines name them. `write_headers` writes them."""

    def write_headers(self) -> None:
        """Writes the header copies (each atomically, and only if it changed)."""
        for h in self.headers:
            write_if_changed(h.path, h.text)


class StrictError(Exception):
    """Raised by `instrument(strict=True)` when the rewriter had warnings."""


GROUP_WIDTH_DEFINE = "#define HIRACE_GROUP_LOG2"
"""How an instrumented unit with lane groups narrower than a warp starts."""


def instrument(
    source: str,
    filename: str = "kernel.cu",
    config: Config | None = None,
    include_dirs: list[str] | None = None,
    defines: dict[str, str | int | None] | None = None,
    target: str = "gpu",
    program: bool = False,
    header_dir: str | Path | None = None,
) -> Instrumented:
    """Rewrite every kernel and device function of `source` to check for races.

    The result includes the runtime header by name (`hirace_runtime.cuh`): put
    `hirace_py.instrument.runtime.include_dir()` on the include path.
    Line numbers in the output map to `filename` through #line directives.
    For a whole program (host code that launches kernels or allocates device
    memory), allocations and launches are hooked as hirace_py.instrument.host
    describes; `target="cpu"` also turns launches into CPU-backend calls.

    The user headers the source reaches are instrumented too
    (hirace_py.instrument.files): their copies go under `header_dir` (by
    default a directory in the cache named by a hash of everything that
    decides them) and are returned in `headers`, not written.
    """
    if target not in ("gpu", "cpu"):
        raise ValueError(f"target must be 'gpu' or 'cpu', got {target!r}")
    config = config or Config()
    parsed = parse(source, filename, include_dirs, defines)
    planner = Planner(parsed, config.instrument_kernel)
    if target == "cpu":
        gpu_only.refuse(planner)  # at any use: none is left to warn of below
    planner.run()
    if target == "gpu":
        for use in (u for u in gpu_only.uses(planner) if u.acts):
            planner.tables.warnings.append(
                Warning(use.file, use.line, use.column, "gpu-only", use.warning(), use.what)
            )
    host = HostPlanner(planner, target, warn_uninstrumented=config.kernels != ())
    program = host.run() or program
    if program:
        accesses = HostAccessPlanner(planner, host.host_functions()).run()
        for name, file_edits in accesses.items():
            host.edits.setdefault(name, []).extend(file_edits)
    display = quote(os.path.basename(filename))
    if header_dir is None:
        header_dir = _default_header_dir(planner, target, program, config)
    body, headers = _render(planner, host.edits if program else host.hide_from_nvrtc(),
                            Path(header_dir))  # fmt: skip
    tables = planner.tables
    bases = base_macros(list(planner.files.values()), planner.site_bases,
                        planner.variable_bases, planner.frame_bases,
                        planner.common_shared_units, tables.dynamic_shared_offset)  # fmt: skip
    # The runtime's lane groups (docs/semantics.md 1.3): the tiles' width when
    # the device code partitions warps into tiles of one constant width.
    log2 = groups.group_log2(planner.warp_barrier_widths, planner.tile_widths)
    planner.tables.group_log2 = log2
    width = f"{GROUP_WIDTH_DEFINE} {log2}\n" if log2 != 5 else ""
    bases += "".join(f"HIRACE_MEMBER_CALLER({n})\n" for n in sorted(planner.member_callers))
    if not program:
        text = f'{width}#include "{HEADER_NAME}"\n{bases}#line 1 "{display}"\n{body}'
        return Instrumented(text, planner.tables, filename, headers=headers)
    head = (f'#define HIRACE_PROGRAM 1\n{width}#include "{HEADER_NAME}"\n{bases}'
            "static hirace::host::Unit& hirace_unit();\n"
            "static const char* hirace_kernel_name(const void*, const char*);\n")  # fmt: skip
    tail = unit_tables(planner.tables, display, host.device_symbols(), config)
    text = f'{head}#line 1 "{display}"\n{body}\n#line 1 "hirace-generated"{tail}'
    return Instrumented(text, planner.tables, filename, program=True, headers=headers)


def relocate(
    source: str,
    filename: str,
    include_dirs: list[str] | None,
    defines: dict[str, str | int | None] | None,
    header_dir: str | Path,
) -> tuple[str, tuple[HeaderCopy, ...]]:
    """`source` and copies of its user headers, unchanged but for the #include
    lines that reach user headers, which name the copies under `header_dir`,
    and launches of template kernels whose arguments are deduced (named by
    their type): what the CPU backend translates for a program built without
    checking."""
    planner = Planner(parse(source, filename, include_dirs, defines), lambda _: False)
    gpu_only.refuse(planner)
    host = HostPlanner(planner, "cpu", hooks=False)
    host.run()
    return _render(planner, host.edits, Path(header_dir))


def _render(planner: Planner, host_edits: dict[str, list[edits.Edit]],
            header_dir: Path) -> tuple[str, tuple[HeaderCopy, ...]]:  # fmt: skip
    """The main file's rewritten text and the copies of the other user files."""
    includes = _inclusions(planner)
    texts: dict[str, str] = {}
    for f in list(planner.files.values()):
        file_edits = [*f.edits, *host_edits.get(f.name, [])]
        for start, end, included in includes.get(f.name, []):
            file_edits.append(include_edit(start, end, copy_path(header_dir, included.path)))
        texts[f.name] = source_text.decode(edits.apply(f.source, file_edits))
    headers = tuple(
        HeaderCopy(f.path, copy_path(header_dir, f.path),
                   f'#line 1 "{quote(f.display)}"\n{texts[f.name]}',
                   f.instrumented or bool(host_edits.get(f.name)))
        for f in planner.files.values() if not f.main
    )  # fmt: skip
    return texts[planner.main], headers


def _inclusions(planner: Planner) -> dict[str, list[tuple[int, int, SourceFile]]]:
    """The #include directives of each user file that reach another user file:
    (start, end, the included file), by the including file's name."""
    out: dict[str, list[tuple[int, int, SourceFile]]] = {}
    for c in planner.top_level:
        if c.kind != ci.CursorKind.INCLUSION_DIRECTIVE:
            continue
        included = c.get_included_file()
        target = planner.user_file(included.name) if included is not None else None
        if target is None or target.main:
            continue
        at = planner.file(c).name
        out.setdefault(at, []).append((c.extent.start.offset, c.extent.end.offset, target))
    return out


def _default_header_dir(planner: Planner, target: str, program: bool, config: Config) -> Path:
    """A cache directory for header copies, named by a hash of what decides them."""
    digest = hashlib.sha256(repr((hirace_py.__version__, target, program, config)).encode())
    for f in planner.files.values():
        digest.update(f.path.encode() + b"\0" + f.source + b"\0")
    return cache_root() / "headers" / digest.hexdigest()[:20]
