"""Precompiled headers for the libclang parse: built once, reused while current.

The parse prelude includes the C and C++ library headers nvcc's do; a unit
that includes the toolkit's libc++ (`<cuda/atomic>`), cooperative groups or
the driver API header spends most of its parse in those too (0.5 s of a
0.55 s parse for an Indigo3 code). `precompile` saves the parse of a header
as a PCH file next to it, with what a user of the PCH must check:

- `headers`: the toolkit headers it holds beyond the prelude (real paths);
- `tested`: every macro those headers test in a conditional (`#if`,
  `#ifdef`, ...). A unit that defines one of them (a configuration macro
  such as `THRUST_DEVICE_SYSTEM` or `_LIBCUDACXX_...`) would preprocess the
  headers differently from the PCH, so it must not use it.

A PCH is named by the hash of its header and arguments, and rebuilt when a
file it was built from changed (libclang would reject a stale one). Several
processes may build the same PCH at once: each writes a temporary file and
renames it into place.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import clang.cindex as ci

from hirace_py.cache import write_if_changed

_CONDITION = re.compile(r"^[ \t]*#[ \t]*(?:el)?if(?:n?def)?\b(.*)$", re.M)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Precompiled:
    """A saved PCH and what its users must check (see the module's description)."""

    path: str
    headers: frozenset[str] = frozenset()
    tested: frozenset[str] = frozenset()


def _stamps(paths: list[str]) -> str:
    return "".join(f"{p}\t{os.stat(p).st_mtime_ns}\n" for p in sorted(set(paths)))


def _current(stamps: Path) -> bool:
    """Whether every file a PCH was built from is unchanged."""
    try:
        lines = stamps.read_text().splitlines()
        return all(os.stat(p).st_mtime_ns == int(t) for p, t in (x.split("\t") for x in lines))
    except (OSError, ValueError):
        return False


def conditional_macros(text: str) -> set[str]:
    """The identifiers the conditionals of `text` test (`defined` included,
    which is harmless: no one defines it)."""
    joined = text.replace("\\\n", " ")
    return {name for cond in _CONDITION.findall(joined) for name in _IDENTIFIER.findall(cond)}


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def precompile(
    header: Path, args: list[str], toolkit_dirs: list[str], headers: frozenset[str] = frozenset()
) -> Precompiled | None:
    """`header` parsed with `args` and saved as a PCH beside it (None if libclang
    cannot: an error in a header, a failed save). `headers` are the real paths
    of the toolkit headers it includes beyond the prelude; the macros tested in
    the files under `toolkit_dirs` it reaches are its `tested`."""
    key = hashlib.sha256("\0".join([str(header), *args]).encode()).hexdigest()[:12]
    path = header.with_name(f"{header.stem}-{key}.pch")
    stamps, macros = path.with_suffix(".stamps"), path.with_suffix(".macros")
    if path.exists() and _current(stamps) and macros.exists():
        return Precompiled(str(path), headers, frozenset(_lines(macros)))
    try:
        tu = ci.Index.create().parse(
            str(header), args=args, options=ci.TranslationUnit.PARSE_INCOMPLETE
        )
    except ci.TranslationUnitLoadError:
        return None
    if any(d.severity >= ci.Diagnostic.Error for d in tu.diagnostics):
        return None
    files = [str(header), *(i.include.name for i in tu.get_includes())]
    prefixes = tuple(d.rstrip(os.sep) + os.sep for d in toolkit_dirs)
    tested: set[str] = set()
    for name in dict.fromkeys(files):
        if name.startswith(prefixes):
            tested |= conditional_macros(Path(name).read_text(errors="replace"))
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".pch-")
    os.close(fd)
    try:
        tu.save(tmp)
    except ci.TranslationUnitSaveError:
        os.unlink(tmp)
        return None
    write_if_changed(macros, "".join(f"{m}\n" for m in sorted(tested)))
    os.replace(tmp, path)
    write_if_changed(stamps, _stamps(files))
    return Precompiled(str(path), headers, frozenset(tested))
