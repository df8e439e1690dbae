"""The user files of a translation unit: its source and the headers it reaches.

A *user file* is the parsed source or any file it includes (a `.h`, `.cuh`,
`.hpp` or an included `.cu`) that is not a system or toolkit header, hirace's
parse prelude or one of its CUDA header stand-ins. Every user file is
instrumented, so kernels and device functions in headers are checked too.

The source's rewrite is the instrumented unit. Each other user file gets a
rewritten *copy* at `copy_path(header_dir, path)` (a mirror of its absolute
path under a directory of the caller's choosing); every `#include` that
reached a user file is rewritten to name the copy, so the original files are
never touched and no include path decides which version is read. A copy
depends only on the header's text and on the hirace version: the numbers it
embeds (access sites, variable ids, shadow-frame offsets) are written as
`HIRACE_S_<tag> + n`, `HIRACE_V_<tag> + n`, `HIRACE_F_<tag> + n`, whose bases
each including unit defines before anything else (`base_macros`). A header
included by two units is therefore rewritten once, identically.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from hirace_py import cuda_api
from hirace_py.instrument import edits

# The parse prelude's file name (rendered from the CUDA API catalogue).
PRELUDE = "hirace_parse_prelude.h"
# Directories whose headers are the system's or the toolkit's, never the user's.
SYSTEM_PREFIXES = ("/usr/", "/opt/", *(d + os.sep for d in cuda_api.toolkit_include_dirs()))
FRAME_LOCALS = "HIRACE_FRAME_LOCALS"
FRAME_DYNAMIC = "HIRACE_FRAME_DYNAMIC"


@dataclass
class SourceFile:
    """One user file of a translation unit and the edits planned for it."""

    name: str
    """The name libclang reports for it."""
    path: str
    """Its real path."""
    source: bytes
    """The bytes it was parsed from."""
    tag: str
    """'' for the parsed source; else the suffix of its base macros."""
    macros: list[tuple[int, int]] = field(default_factory=list)
    """Byte spans of the macro expansions written in it."""
    edits: list[edits.Edit] = field(default_factory=list)
    instrumented: bool = False
    """Whether anything in it was instrumented (beyond its #include lines)."""

    @property
    def main(self) -> bool:
        return not self.tag

    @property
    def display(self) -> str:
        """Its name in reports and #line directives."""
        return os.path.basename(self.path)

    def number(self, kind: str, n: int) -> str:
        """`n` (a site or variable id, or a frame offset, numbered within this
        file) as the C++ the rewrite embeds: a literal in the unit's own source,
        an offset from the unit's base macro in a header copy."""
        if self.main:
            return f"{n}" if kind == "HIRACE_V" else f"{n}u"
        return f"({kind}_{self.tag} + {n}u)"


def is_system(name: str, stub_dir: str) -> bool:
    """Whether a file is the system's, the toolkit's or hirace's own (not the user's)."""
    return name.startswith(SYSTEM_PREFIXES) or name.endswith(PRELUDE) or name.startswith(stub_dir)


def tag_of(path: str) -> str:
    """A short name for a header, stable across units and runs."""
    return hashlib.sha256(path.encode()).hexdigest()[:12]


def copy_path(header_dir: Path, path: str) -> Path:
    """Where the rewritten copy of the user file at `path` goes."""
    return Path(header_dir).resolve() / path.lstrip("/")


@dataclass(frozen=True)
class HeaderCopy:
    """A user header (or included source) rewritten for one program."""

    original: str
    path: Path
    text: str
    instrumented: bool
    """False when only its #include lines changed (it has no device code)."""


def quote(name: str) -> str:
    """`name` escaped for a string literal in #line and #include directives."""
    return name.replace("\\", "\\\\").replace('"', '\\"')


def include_edit(start: int, end: int, target: Path) -> edits.Edit:
    """Replaces an #include directive spanning [start, end) by one of `target`."""
    return edits.replace(start, end, f'#include "{quote(str(target))}"')


def base_macros(files: list[SourceFile], sites: dict[str, int], variables: dict[str, int],
                frames: dict[str, int], locals_base: int, dynamic: int) -> str:  # fmt: skip
    """The `#define`s a unit puts before its code: the bases of its header copies."""
    lines = []
    for f in files:
        if f.main:
            continue
        lines.append(f"#define HIRACE_S_{f.tag} {sites.get(f.name, 0)}u")
        lines.append(f"#define HIRACE_V_{f.tag} {variables.get(f.name, 0)}u")
        lines.append(f"#define HIRACE_F_{f.tag} {frames.get(f.name, 0)}u")
    if lines:
        lines.append(f"#define {FRAME_LOCALS} {locals_base}u")
        lines.append(f"#define {FRAME_DYNAMIC} {dynamic}u")
    return "".join(line + "\n" for line in lines)
