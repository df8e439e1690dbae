"""Parse CUDA source with libclang, without CUDA headers, a toolkit or a GPU.

The parse prelude, rendered from the CUDA API catalogue (hirace_py.cuda_api),
declares CUDA's built-ins; the usual CUDA headers are replaced by empty stubs
so that `#include <cuda_runtime.h>` resolves. Host headers come from the system's
g++ include path (the PyPI libclang ships no headers of its own).
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import clang.cindex as ci

from hirace_py import cuda_api, source_text
from hirace_py.cache import write_if_changed
from hirace_py.cuda_headers import write_stand_ins
from hirace_py.errors import HiraceError
from hirace_py.includes import local_headers
from hirace_py.instrument.dialect import normalized
from hirace_py.instrument.files import PRELUDE, SYSTEM_PREFIXES


class ParseError(HiraceError):
    """Source libclang cannot parse: the message names the first error with
    file:line:col; `errors` lists them all."""

    def __init__(self, message: str, errors: list[str] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or [message]


class UnsupportedFeature(ParseError):
    """Source uses something hirace does not support (a texture, cuFFT, ...):
    one line naming it and where."""


# Errors clang gives where nvcc (EDG, with g++'s extensions) accepts the code;
# the declaration stays in the AST with only the offending part dropped.
_NVCC_ACCEPTS = (
    "initialization is not supported for __shared__ variables",
    "invalid % escape in inline assembly string",
    "variable-sized object may not be initialized",
    "'__malloc__' attribute takes no arguments",  # gcc's <omp.h>
)

# Diagnostics naming an identifier that is not declared.
_UNDECLARED = re.compile(
    r"use of undeclared identifier '(\w+)'|unknown type name '(\w+)'|no template named '(\w+)'"
    r"|no type named '(\w+)'|undeclared identifier '(\w+)'"
)


@dataclass
class Parsed:
    """A parsed translation unit and the exact bytes it was parsed from."""

    tu: ci.TranslationUnit
    filename: str
    source: bytes
    unsaved: dict[str, bytes] = field(default_factory=dict)
    """Headers parsed from other bytes than their files' (dialect.normalized)."""
    stub_dir: str = ""
    """The directory of the CUDA header stand-ins the parse used."""
    display: str = ""
    """The file's name as the user gave it (for messages)."""


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


def children(c: ci.Cursor) -> list[ci.Cursor]:
    """The cursor's children, as a list."""
    return list(c.get_children())


def attributes(c: ci.Cursor) -> set[ci.CursorKind]:
    """The kinds of the attributes attached to a declaration."""
    return {ch.kind for ch in c.get_children() if ch.kind.is_attribute()}


def stripped(c: ci.Cursor) -> ci.Cursor:
    """The expression under implicit casts and parentheses."""
    while c.kind in (ci.CursorKind.UNEXPOSED_EXPR, ci.CursorKind.PAREN_EXPR):
        kids = list(c.get_children())
        if len(kids) != 1:
            break
        c = kids[0]
    return c


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
    """A directory of empty CUDA headers and the prelude, which declares what
    they would. Named by the prelude's hash: checkouts of hirace with other
    catalogues use other directories."""
    text = cuda_api.prelude()
    real = (*cuda_api.toolkit_include_dirs(), *system_include_dirs())
    stood_in = "\0".join(sorted(cuda_api.stand_in_headers(real)))
    key = hashlib.sha256(f"{text}\0{stood_in}".encode()).hexdigest()[:12]
    root = Path(tempfile.gettempdir()) / f"hirace-stubs-{os.getuid()}-{key}"
    write_stand_ins(root, "hirace parse stub: see the parse prelude", real)
    write_if_changed(root / PRELUDE, text)
    return str(root)


_BASE_ARGS = (
    "-x", "cuda", "--cuda-gpu-arch=sm_80", "--cuda-device-only",
    "-nocudainc", "-nocudalib", "-nostdinc", "-nostdinc++", "-std=c++17",
    "-Wno-unknown-cuda-version", "-ferror-limit=50",
)  # fmt: skip


def _search_path() -> list[str]:
    """The toolkit's headers that hirace does not stand in for
    (cooperative_groups.h, cuda/atomic, ...), then the system's."""
    args = []
    for d in (*cuda_api.toolkit_include_dirs(), *system_include_dirs()):
        args += ["-isystem", d]
    return args


def _stamps(paths: list[str]) -> str:
    return "".join(f"{p}\t{os.stat(p).st_mtime_ns}\n" for p in sorted(set(paths)))


def _current(stamps: Path) -> bool:
    """Whether every header a precompiled prelude was built from is unchanged."""
    try:
        lines = stamps.read_text().splitlines()
        return all(os.stat(p).st_mtime_ns == int(t) for p, t in (x.split("\t") for x in lines))
    except (OSError, ValueError):
        return False


@functools.cache
def _prelude_pch() -> str | None:
    """The prelude precompiled (it includes the C and C++ library headers
    nvcc's do, which take most of a parse); None if libclang cannot.

    Named by the hash of the prelude and the arguments it is built with, so a
    changed catalogue or search path builds a new one; rebuilt when a header
    it includes changed (libclang rejects a stale one)."""
    stub = _stub_dir()
    args = [*_BASE_ARGS, "-I", stub, *_search_path()]
    key = hashlib.sha256("\0".join(args).encode()).hexdigest()[:12]
    path = Path(stub) / f"hirace_parse_prelude-{key}.pch"
    stamps = path.with_suffix(".stamps")
    if path.exists() and _current(stamps):
        return str(path)
    prelude = str(Path(stub) / PRELUDE)
    try:
        tu = ci.Index.create().parse(
            prelude, args=args, options=ci.TranslationUnit.PARSE_INCOMPLETE
        )
    except ci.TranslationUnitLoadError:
        return None
    if any(d.severity >= ci.Diagnostic.Error for d in tu.diagnostics):
        return None
    fd, tmp = tempfile.mkstemp(dir=stub, prefix=".pch-")
    os.close(fd)
    try:
        tu.save(tmp)
    except ci.TranslationUnitSaveError:
        os.unlink(tmp)
        return None
    os.replace(tmp, path)
    write_if_changed(stamps, _stamps([prelude, *(i.include.name for i in tu.get_includes())]))
    return str(path)


def clang_args(
    include_dirs: list[str] | None = None, defines: dict[str, str | int | None] | None = None
) -> list[str]:
    """Arguments that parse CUDA device and host code with the catalogue's prelude."""
    pch = _prelude_pch()
    prelude = ["-include-pch", pch] if pch else ["-include", str(Path(_stub_dir()) / PRELUDE)]
    args = [*_BASE_ARGS, *prelude, "-I", _stub_dir()]
    for d in include_dirs or []:
        args += ["-I", str(d)]
    for name, value in (defines or {}).items():
        args.append(f"-D{name}" if value is None else f"-D{name}={value}")
    return args + _search_path()


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
    source = normalized(source)
    unsaved = _joined_headers(source, dirs)
    index = ci.Index.create()
    options = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    files = [(path, source_text.encode(source)), *unsaved.items()]
    try:
        tu = index.parse(path, args=clang_args(dirs, defines), unsaved_files=files, options=options)
    except ci.TranslationUnitLoadError as exc:
        raise ParseError(f"{filename}: libclang could not parse the file ({exc})") from None
    errors = [
        d
        for d in tu.diagnostics
        if d.severity >= ci.Diagnostic.Error and not d.spelling.startswith(_NVCC_ACCEPTS)
    ]
    unsupported = _unsupported(tu, errors, path, filename)
    if unsupported:
        raise UnsupportedFeature(unsupported)
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
        more = f" (and {len(lines) - 1} more error(s))" if len(lines) > 1 else ""
        raise ParseError(f"{lines[0]}{more}: cannot parse the CUDA source", lines)
    return Parsed(tu, path, source_text.encode(source), unsaved, _stub_dir(), filename)


def _joined_headers(source: str, dirs: list[str]) -> dict[str, bytes]:
    """The local headers `source` includes whose nvcc-only spellings had to be rewritten,
    with their rewritten text (libclang reads them from these bytes, not the files)."""
    out = {}
    for name, data in local_headers(source, [Path(d) for d in dirs]):
        if name.startswith(SYSTEM_PREFIXES):
            continue
        text = source_text.decode(data)
        joined = normalized(text)
        if joined != text:
            out[name] = source_text.encode(joined)
    return out


def _unsupported(
    tu: ci.TranslationUnit, errors: list[ci.Diagnostic], path: str, filename: str
) -> str | None:
    """The one-line message for the first error that is a use of something
    unsupported, or None."""
    cat = cuda_api.catalogue()
    headers = {**cat.unsupported_headers, **cat.gpu_only_headers}
    stub = _stub_dir()
    for d in errors:
        loc = d.location
        if loc.file is not None and loc.file.name.startswith(stub + os.sep):
            header = os.path.relpath(loc.file.name, stub)
            if header in headers:
                site = next(
                    (i.location for i in tu.get_includes() if i.include.name == loc.file.name), None
                )
                where = (
                    f"{_display(site.file.name, path, filename)}:{site.line}" if site else filename
                )
                message = cuda_api.unsupported_message(headers[header], f"#include <{header}>")
                return f"{where}: {message}"
        m = _UNDECLARED.search(d.spelling)
        name = next((g for g in m.groups() if g), None) if m else None
        feature = cuda_api.gpu_only_feature(name) if name else None
        if feature is not None and loc.file is not None:
            where = f"{_display(loc.file.name, path, filename)}:{loc.line}"
            return f"{where}: {cuda_api.unsupported_message(feature, name)}"
    return None


def _display(name: str, path: str, filename: str) -> str:
    return filename if name == path else name
