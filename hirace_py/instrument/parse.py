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
from hirace_py.includes import INCLUDE_RE, local_headers
from hirace_py.instrument import precompiled
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

# A #define (or #undef) in a user file.
_DEFINED = re.compile(r"^[ \t]*#[ \t]*(?:define|undef)[ \t]+(\w+)", re.M)

# Clang's diagnostic for a kernel or a host function used in device code.
_DEVICE_SIDE = re.compile(
    r"reference to __(global|host)__ function '(\w+)' in __(?:global|device)__ function"
)

_NO_MATCH = re.compile(r"no matching function for call to '(\w+)'")
_HOST_FROM_DEVICE = "call to __host__ function from __"  # __global__ or __device__

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


def overloaded_reference(call: ci.Cursor) -> ci.Cursor | None:
    """The OVERLOADED_DECL_REF under an unnamed call's callee: libclang's name
    for a call it cannot resolve in a template (dependent arguments, or
    explicit template arguments), or None."""
    kids = list(call.get_children())
    if call.spelling or not kids:
        return None
    callee = stripped(kids[0])
    if callee.kind == ci.CursorKind.OVERLOADED_DECL_REF:
        return callee
    return next((c for c in callee.get_children() if c.kind == ci.CursorKind.OVERLOADED_DECL_REF),
                None)  # fmt: skip


@dataclass(frozen=True)
class DependentMember:
    """A member call in a template whose object's type is a template parameter
    (`o.name(...)`, `p->name(...)`): libclang leaves it unnamed and unresolved,
    since which class's `name` it calls is known only per instantiation."""

    name: str
    obj: ci.Cursor
    arrow: bool


def dependent_member(call: ci.Cursor) -> DependentMember | None:
    """The dependent member call `call` is, or None (named calls, implicit
    `this`, operators, destructors, explicit template arguments)."""
    kids = list(call.get_children())
    if call.spelling or not kids:
        return None
    callee = stripped(kids[0])
    if callee.kind != ci.CursorKind.MEMBER_REF_EXPR or callee.spelling:
        return None
    objects = list(callee.get_children())
    if len(objects) != 1:
        return None
    end = objects[0].extent.end.offset
    tokens = [t for t in callee.get_tokens() if t.extent.start.offset >= end]
    if len(tokens) > 1 and tokens[1].spelling == "template":
        del tokens[1]
    if (len(tokens) != 2 or tokens[0].spelling not in (".", "->")
            or tokens[1].kind != ci.TokenKind.IDENTIFIER):  # fmt: skip
        return None
    return DependentMember(tokens[1].spelling, objects[0], tokens[0].spelling == "->")


def dependent_functor(call: ci.Cursor) -> ci.Cursor | None:
    """The callee of `f(args)` in a template when `f` is a variable, parameter
    or member whose type depends on a template parameter (a functor whose
    `operator()` is known only per instantiation), or None."""
    kids = list(call.get_children())
    if not kids:
        return None
    callee = stripped(kids[0])
    ref = callee.referenced
    if (callee.kind not in (ci.CursorKind.DECL_REF_EXPR, ci.CursorKind.MEMBER_REF_EXPR)
            or ref is None or ref.kind not in (ci.CursorKind.PARM_DECL, ci.CursorKind.VAR_DECL,
                                               ci.CursorKind.FIELD_DECL)):  # fmt: skip
        return None
    t = ref.type.get_canonical()
    if t.kind in (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE):
        t = t.get_pointee().get_canonical()
    return callee if t.kind == ci.TypeKind.UNEXPOSED else None


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
    # nvcc and g++ warn about `register` in C++17; clang refuses it.
    "-Wno-register",
)  # fmt: skip


def _search_path() -> list[str]:
    """The toolkit's headers that hirace does not stand in for
    (cooperative_groups.h, cuda/atomic, ...), then the system's."""
    args = []
    for d in (*cuda_api.toolkit_include_dirs(), *system_include_dirs()):
        args += ["-isystem", d]
    return args


@functools.cache
def _prelude_pch() -> str | None:
    """The prelude precompiled (it includes the C and C++ library headers
    nvcc's do, which take most of a parse); None if libclang cannot."""
    stub = _stub_dir()
    args = [*_BASE_ARGS, "-I", stub, *_search_path()]
    pch = precompiled.precompile(Path(stub) / PRELUDE, args, cuda_api.toolkit_include_dirs())
    return pch.path if pch else None


@functools.cache
def _toolkit_pch(names: tuple[str, ...], headers: frozenset[str],
                 define_args: tuple[str, ...]) -> precompiled.Precompiled | None:  # fmt: skip
    """The prelude and the toolkit headers `names` (real paths `headers`),
    precompiled with the command line's macros `define_args`."""
    if _prelude_pch() is None:
        return None
    stub = _stub_dir()
    text = f'#include "{PRELUDE}"\n' + "".join(f"#include <{n}>\n" for n in names)
    key = hashlib.sha256(f"{text}\0{define_args}".encode()).hexdigest()[:12]
    header = Path(stub) / f"hirace_parse_toolkit-{key}.h"
    write_if_changed(header, text)
    args = [*_BASE_ARGS, "-I", stub, *define_args, *_search_path()]
    return precompiled.precompile(header, args, cuda_api.toolkit_include_dirs(), headers)


def _toolkit_includes(texts: list[str], dirs: list[str]) -> dict[str, str]:
    """The toolkit headers the user files `texts` include with `<...>`, each
    with its real path: those the parse's search finds in a toolkit directory
    (not among hirace's stand-ins, not in one of the user's `dirs`)."""
    first = [_stub_dir(), *dirs]
    toolkit = cuda_api.toolkit_include_dirs()
    out: dict[str, str] = {}
    for text in texts:
        for kind, name in INCLUDE_RE.findall(text):
            if kind != "<" or name in out:
                continue
            if any(os.path.isfile(os.path.join(d, name)) for d in first):
                continue
            found = next((os.path.join(d, name) for d in toolkit
                          if os.path.isfile(os.path.join(d, name))), None)  # fmt: skip
            if found is not None:
                out[name] = os.path.realpath(found)
    return out


_toolkit_pch_enabled = True


def use_toolkit_pch(enabled: bool) -> None:
    """Whether units' toolkit headers are parsed from a precompiled header (the
    default); off only to compare (bench/program_build.py)."""
    global _toolkit_pch_enabled
    _toolkit_pch_enabled = enabled


def _unit_pch(
    texts: list[str], dirs: list[str], defines: dict[str, str | int | None] | None
) -> precompiled.Precompiled | None:
    """The precompiled prelude with the toolkit headers the unit includes, or
    None where it includes none, or defines a macro they test."""
    includes = _toolkit_includes(texts, dirs) if _toolkit_pch_enabled else {}
    if not includes:
        return None
    pch = _toolkit_pch(tuple(sorted(includes)), frozenset(includes.values()),
                       tuple(_define_args(defines)))  # fmt: skip
    if pch is None:
        return None
    defined = {name for text in texts for name in _DEFINED.findall(text)}
    return None if pch.tested & defined else pch


def _define_args(defines: dict[str, str | int | None] | None) -> list[str]:
    return [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in (defines or {}).items()]


def clang_args(
    include_dirs: list[str] | None = None,
    defines: dict[str, str | int | None] | None = None,
    pch: str | None = None,
) -> list[str]:
    """Arguments that parse CUDA device and host code with the catalogue's
    prelude (precompiled: `pch`, by default the prelude's own)."""
    pch = pch or _prelude_pch()
    prelude = ["-include-pch", pch] if pch else ["-include", str(Path(_stub_dir()) / PRELUDE)]
    args = [*_BASE_ARGS, *prelude, "-I", _stub_dir()]
    for d in include_dirs or []:
        args += ["-I", str(d)]
    return args + _define_args(defines) + _search_path()


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
    headers = local_headers(source, [Path(d) for d in dirs])
    unsaved = _joined_headers(headers)
    files = [(path, source_text.encode(source)), *unsaved.items()]
    pch = _unit_pch([source, *(data.decode(errors="replace") for _, data in headers)], dirs,
                    defines)  # fmt: skip
    tu = _parse_file(path, filename, clang_args(dirs, defines, pch and pch.path), files)
    if pch is not None and not pch.headers <= _included(tu):
        # A toolkit header that only an inactive #if branch includes: the
        # unit must not see it.
        tu = _parse_file(path, filename, clang_args(dirs, defines), files)
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


def _parse_file(
    path: str, filename: str, args: list[str], files: list[tuple[str, bytes]]
) -> ci.TranslationUnit:
    options = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
    try:
        return ci.Index.create().parse(path, args=args, unsaved_files=files, options=options)
    except ci.TranslationUnitLoadError as exc:
        raise ParseError(f"{filename}: libclang could not parse the file ({exc})") from None


def _included(tu: ci.TranslationUnit) -> set[str]:
    """Real paths of the files the user files' active #include directives name
    (a toolkit header's directive is recorded even where the PCH made it empty)."""
    out = set()
    for c in tu.cursor.get_children():
        if c.kind == ci.CursorKind.INCLUSION_DIRECTIVE and not in_system_header(c.location):
            try:
                included = c.get_included_file()
            except AssertionError:  # a file not found: the bindings assert on the null File
                continue
            if included is not None:
                out.add(os.path.realpath(included.name))
    return out


def _joined_headers(headers: list[tuple[str, bytes]]) -> dict[str, bytes]:
    """The local `headers` whose nvcc-only spellings had to be rewritten, with
    their rewritten text (libclang reads them from these bytes, not the files)."""
    out = {}
    for name, data in headers:
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
    numbers = {h.name: h.feature for h in cat.number_headers}
    stub = _stub_dir()
    for d in errors:
        loc = d.location
        if loc.file is not None and loc.file.name.startswith(stub + os.sep):
            header = os.path.relpath(loc.file.name, stub)
            if header in headers:
                where = _site(tu, loc.file.name, path, filename)
                message = cuda_api.unsupported_message(headers[header], f"#include <{header}>")
                return f"{where}: {message}"
            if header in numbers:
                return f"{_site(tu, loc.file.name, path, filename)}: {numbers[header]} " \
                    f"(#include <{header}>): {cuda_api.NO_TOOLKIT}"  # fmt: skip
        role, name = _device_side(d)
        if role is not None and loc.file is not None:
            where = f"{_display(loc.file.name, path, filename)}:{loc.line}"
            dynamic = cat.unsupported_device_side[role]
            return f"{where}: {cuda_api.unsupported_message(dynamic, name)}"
        m = _UNDECLARED.search(d.spelling)
        name = next((g for g in m.groups() if g), None) if m else None
        feature = cuda_api.gpu_only_feature(name) if name else None
        if feature is not None and loc.file is not None:
            where = f"{_display(loc.file.name, path, filename)}:{loc.line}"
            return f"{where}: {cuda_api.unsupported_message(feature, name)}"
    return None


def _site(tu: ci.TranslationUnit, header: str, path: str, filename: str) -> str:
    """file:line of the #include of `header` (a stand-in), as the user names it."""
    site = next((i.location for i in tu.get_includes() if i.include.name == header), None)
    return f"{_display(site.file.name, path, filename)}:{site.line}" if site else filename


def _device_side(d: ci.Diagnostic) -> tuple[str | None, str]:
    """("launch" or "runtime", the name) if the error is dynamic parallelism:
    a kernel launched, or a runtime function called, from device code."""
    m = _DEVICE_SIDE.match(d.spelling)
    if m and (m[1] == "global" or m[2].startswith("cuda")):
        return ("launch" if m[1] == "global" else "runtime"), m[2]
    m = _NO_MATCH.match(d.spelling)
    if m and m[1].startswith("cuda") and any(
        _HOST_FROM_DEVICE in c.spelling for c in d.children
    ):
        return "runtime", m[1]
    return None, ""


def _display(name: str, path: str, filename: str) -> str:
    return filename if name == path else name
