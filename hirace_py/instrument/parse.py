"""Parse CUDA source with libclang, without CUDA headers, a toolkit or a GPU.

The bundled parse prelude (templates/parse_prelude.h) declares CUDA's
built-ins; the usual CUDA headers are replaced by empty stubs so that
`#include <cuda_runtime.h>` resolves. Host headers come from the system's
g++ include path (the PyPI libclang ships no headers of its own).
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import clang.cindex as ci

from hirace_py.cuda_headers import write_stand_ins
from hirace_py.errors import HiraceError
from hirace_py.includes import local_headers
from hirace_py.instrument.files import SYSTEM_PREFIXES
from hirace_py.instrument.launch_syntax import contiguous
from hirace_py.templating import template_dir


class ParseError(HiraceError):
    """Source libclang cannot parse; the message lists each error with file:line:col."""


@dataclass
class Parsed:
    """A parsed translation unit and the exact bytes it was parsed from."""

    tu: ci.TranslationUnit
    filename: str
    source: bytes
    unsaved: dict[str, bytes] = field(default_factory=dict)
    """Headers parsed from other bytes than their files' (spaced launches joined)."""
    stub_dir: str = ""
    """The directory of the CUDA header stand-ins the parse used."""


@functools.cache
def _operator_functions() -> tuple:
    lib = ci.conf.lib
    binary = lib.clang_getCursorBinaryOperatorKind
    binary.argtypes, binary.restype = [ci.Cursor], ctypes.c_int
    binary_spelling = lib.clang_getBinaryOperatorKindSpelling
    binary_spelling.argtypes, binary_spelling.restype = [ctypes.c_int], ci._CXString
    unary = lib.clang_getCursorUnaryOperatorKind
    unary.argtypes, unary.restype = [ci.Cursor], ctypes.c_int
    unary_spelling = lib.clang_getUnaryOperatorKindSpelling
    unary_spelling.argtypes, unary_spelling.restype = [ctypes.c_int], ci._CXString
    return binary, binary_spelling, unary, unary_spelling


@functools.cache
def _spelling(kind: int, binary: bool) -> str:
    _, bspell, _, uspell = _operator_functions()
    return ci._CXString.from_result((bspell if binary else uspell)(kind))


@functools.cache
def _is_from_main_file() -> object:
    fn = ci.conf.lib.clang_Location_isFromMainFile
    fn.argtypes, fn.restype = [ci.SourceLocation], ctypes.c_int
    return fn


def in_main_file(location: ci.SourceLocation) -> bool:
    """Whether a location is in the file that was parsed (not an included one)."""
    return bool(_is_from_main_file()(location))  # type: ignore[operator]


@functools.cache
def _is_in_system_header() -> object:
    fn = ci.conf.lib.clang_Location_isInSystemHeader
    fn.argtypes, fn.restype = [ci.SourceLocation], ctypes.c_int
    return fn


def in_system_header(location: ci.SourceLocation) -> bool:
    """Whether a location is in a header found through a system include directory."""
    return bool(_is_in_system_header()(location))  # type: ignore[operator]


def binary_operator(cursor: ci.Cursor) -> str:
    """Spelling of a binary or compound-assignment operator cursor ('=', '+=', ...)."""
    return _spelling(_operator_functions()[0](cursor), True)


def unary_operator(cursor: ci.Cursor) -> str:
    """Spelling of a unary operator cursor: '*', '&', '++', '--', ... (post forms too)."""
    return _spelling(_operator_functions()[2](cursor), False)


@functools.cache
def system_include_dirs() -> tuple[str, ...]:
    """The C++ include search path of the system's g++ (empty if g++ is missing)."""
    try:
        out = subprocess.run(
            ["g++", "-E", "-x", "c++", "-", "-v"],
            input="",
            capture_output=True,
            text=True,
            timeout=30,
        ).stderr
    except (OSError, subprocess.TimeoutExpired):
        return ()
    m = re.search(r"#include <\.\.\.> search starts here:\n(.*?)End of search list", out, re.S)
    return tuple(line.strip() for line in m[1].splitlines()) if m else ()


@functools.cache
def _stub_dir() -> str:
    """A directory of empty CUDA headers; the prelude declares what they would."""
    root = Path(tempfile.gettempdir()) / f"hirace-stubs-{os.getuid()}"
    write_stand_ins(root, "hirace parse stub: see the parse prelude")
    return str(root)


def clang_args(
    include_dirs: list[str] | None = None, defines: dict[str, str | int | None] | None = None
) -> list[str]:
    """Arguments that parse CUDA device and host code with the bundled prelude."""
    args = [
        "-x", "cuda", "--cuda-gpu-arch=sm_80", "--cuda-device-only",
        "-nocudainc", "-nocudalib", "-nostdinc", "-nostdinc++", "-std=c++17",
        "-Wno-unknown-cuda-version", "-ferror-limit=50",
        "-include", str(template_dir() / "parse_prelude.h"),
        "-I", _stub_dir(),
    ]  # fmt: skip
    for d in include_dirs or []:
        args += ["-I", str(d)]
    for name, value in (defines or {}).items():
        args.append(f"-D{name}" if value is None else f"-D{name}={value}")
    for d in system_include_dirs():
        args += ["-isystem", d]
    return args


def parse(
    source: str,
    filename: str,
    include_dirs: list[str] | None = None,
    defines: dict[str, str | int | None] | None = None,
) -> Parsed:
    """Parse `source` as the file `filename`; ParseError on any error diagnostic.

    The file's own directory is on the include path, as with nvcc.
    """
    path = os.path.abspath(filename)
    dirs = [os.path.dirname(path), *(include_dirs or [])]
    source = contiguous(source)
    unsaved = _joined_headers(source, dirs)
    index = ci.Index.create()
    options = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    files = [(path, source), *((name, data.decode()) for name, data in unsaved.items())]
    try:
        tu = index.parse(path, args=clang_args(dirs, defines), unsaved_files=files, options=options)
    except ci.TranslationUnitLoadError as exc:
        raise ParseError(f"{filename}: libclang could not parse the file ({exc})") from None
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        lines = []
        for d in errors:
            loc = d.location
            where = (
                f"{_display(loc.file.name, path, filename)}:{loc.line}:{loc.column}"
                if loc.file
                else filename
            )
            lines.append(f"{where}: {d.spelling}")
        raise ParseError("cannot parse CUDA source:\n" + "\n".join(lines))
    return Parsed(tu, path, source.encode(), unsaved, _stub_dir())


def _joined_headers(source: str, dirs: list[str]) -> dict[str, bytes]:
    """The local headers `source` includes whose spaced launches had to be joined,
    with their joined text (libclang reads them from these bytes, not the files)."""
    out = {}
    for name, data in local_headers(source, [Path(d) for d in dirs]):
        if name.startswith(SYSTEM_PREFIXES):
            continue
        text = data.decode(errors="replace")
        joined = contiguous(text)
        if joined != text:
            out[name] = joined.encode()
    return out


def _display(name: str, path: str, filename: str) -> str:
    return filename if name == path else name
