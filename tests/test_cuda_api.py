"""The CUDA API catalogue against the CUDA toolkit's own headers.

libclang parses the toolkit's headers (cuda_runtime.h and everything it pulls
in, as nvcc includes it in every .cu file) and the catalogue rendered with
nvcc's attributes; every user-callable function and overload the headers
declare must be in the catalogue with the same __host__/__device__
attributes, or name an unsupported feature (with the message users get).
The headers come from the toolkit (/usr/local/cuda/include, or
$HIRACE_CUDA_INCLUDE), else from the nvidia-cuda-crt/-runtime/-cccl wheels
that scripts/setup.sh installs where no toolkit is.
"""

from __future__ import annotations

import functools
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import clang.cindex as ci
import pytest

from hirace_py import cuda_api, source_text
from hirace_py.backends import cpu_runtime
from hirace_py.instrument import instrument
from hirace_py.instrument import parse as parse_module
from hirace_py.instrument.parse import system_include_dirs

# Implementation details the headers declare at namespace scope but users do
# not call: nvcc's internal helpers (__nv_*, __cuda*, *_impl), the typed
# atomics the public atomics forward to (__iAtomicAdd, __fAtomicAdd, ...),
# and the global operator new/delete overloads.
INTERNAL = re.compile(r"^(__nv|__cuda|__[a-z0-9]+Atomic|operator)|_impl$|^__u128")

K = ci.CursorKind
FUNCTION_KINDS = (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE)
SCOPES = (K.TRANSLATION_UNIT, K.LINKAGE_SPEC, K.UNEXPOSED_DECL)


def toolkit_include() -> Path | None:
    return cuda_api.toolkit_include()


@dataclass
class Declared:
    """One function overload: where it is declared and its attributes."""

    name: str
    files: set[str] = field(default_factory=set)
    host: bool = False
    device: bool = False


def _key(c: ci.Cursor) -> tuple[str, str]:
    if c.kind == K.FUNCTION_TEMPLATE:
        # Template parameter names differ; the parameters' count and the
        # template's name identify it well enough.
        return c.spelling, f"template/{len(list(c.get_arguments()))}/{c.displayname.count(',')}"
    # Exception specifications and noreturn are not part of an overload's identity.
    spelling = c.type.get_canonical().spelling
    return c.spelling, re.sub(
        r"\s*(noexcept|throw\(\)|__attribute__\(\(noreturn\)\))$", "", spelling
    )


def _functions(tu: ci.TranslationUnit, keep: object) -> dict[tuple[str, str], Declared]:
    out: dict[tuple[str, str], Declared] = {}
    for c in tu.cursor.walk_preorder():
        if c.kind not in FUNCTION_KINDS or c.location.file is None:
            continue
        if c.semantic_parent is None or c.semantic_parent.kind not in SCOPES:
            continue
        if not keep(c.location.file.name):  # type: ignore[operator]
            continue
        kinds = {k.kind for k in c.get_children()}
        d = out.setdefault(_key(c), Declared(c.spelling))
        d.files.add(c.location.file.name)
        d.host |= K.CUDAHOST_ATTR in kinds
        d.device |= K.CUDADEVICE_ATTR in kinds
    return out


def _args(*include: str) -> list[str]:
    args = [
        "-x", "cuda", "--cuda-gpu-arch=sm_90", "--cuda-device-only", "-nocudainc",
        "-nocudalib", "-std=c++17", "-D__CUDACC__", "-Wno-unknown-cuda-version",
    ]  # fmt: skip
    for d in include:
        args += ["-I", d]
    for d in system_include_dirs():
        args += ["-isystem", d]
    return args


@functools.cache
def header_unit() -> ci.TranslationUnit:
    """The toolkit's cuda_runtime.h (and what it pulls in), parsed as nvcc reads it."""
    include = toolkit_include()
    assert include is not None, (
        "no CUDA headers: install the toolkit or run scripts/setup.sh (it installs the "
        "nvidia-cuda-crt, nvidia-cuda-runtime and nvidia-cuda-cccl wheels)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "headers.cu"
        # The wheels have no cuda_profiler_api.h (the toolkit has).
        headers = ["cuda_runtime.h", "cuda_profiler_api.h"]
        source.write_text("".join(f"#include <{h}>\n" for h in headers if (include / h).exists()))
        return ci.Index.create().parse(str(source), args=_args(str(include), str(include / "cccl")))


def in_toolkit(file: str) -> bool:
    include = toolkit_include()
    assert include is not None
    return str(Path(file).resolve()).startswith(str(include.resolve()))


@functools.cache
def catalogue_unit() -> tuple[ci.TranslationUnit, str]:
    """The catalogue's declarations (the prelude with nvcc's attributes), parsed,
    and the name of the file they are in."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "catalogue.cu"
        source.write_text(cuda_api.prelude(exact=True))
        tu = ci.Index.create().parse(str(source), args=_args())
        errors = [
            f"{d.location.line}: {d.spelling}"
            for d in tu.diagnostics
            if d.severity >= ci.Diagnostic.Error
        ]
        assert errors == [], "the catalogue does not parse as declarations"
    return tu, str(source)


@functools.cache
def header_functions() -> dict[tuple[str, str], Declared]:
    return {
        k: d
        for k, d in _functions(header_unit(), in_toolkit).items()
        if not INTERNAL.search(d.name)
    }


@functools.cache
def catalogue_functions() -> dict[tuple[str, str], Declared]:
    tu, source = catalogue_unit()
    return _functions(tu, lambda f: f == source)


def _unsupported(name: str, type_: str) -> str | None:
    cat = cuda_api.catalogue()
    for pattern, feature in cat.unsupported_overloads:
        if pattern.search(f"{name} {type_}"):
            return feature
    return cat.gpu_only_feature(name)


def test_every_header_function_is_in_the_catalogue_or_unsupported() -> None:
    headers, ours = header_functions(), catalogue_functions()
    runtime = cuda_api.names("runtime")
    device_side = cuda_api.catalogue().unsupported_device_side
    missing, wrong, unsupported, device_only_unsupported = [], [], 0, 0
    for key, d in sorted(headers.items()):
        mine = ours.get(key)
        if mine is None:
            if _unsupported(d.name, key[1]) is None:
                missing.append(f"{d.name} {key[1]} ({', '.join(sorted(d.files))})")
            else:
                unsupported += 1
        elif d.name in runtime and (d.host, d.device) == (True, True) and mine.host:
            assert "runtime" in device_side
            device_only_unsupported += 1
        elif (mine.host, mine.device) != (d.host, d.device):
            wrong.append(f"{d.name} {key[1]}: headers host={d.host} device={d.device}, "
                         f"catalogue host={mine.host} device={mine.device}")  # fmt: skip
    assert missing == [], "\n".join(missing)
    assert wrong == []
    # The counts in the catalogue's documentation (docs/cuda-api.md).
    gpu_only = {(f.name, f.signature()) for f in cuda_api.catalogue().functions if f.gpu_only}
    print(
        f"headers: {len(headers)} overloads; catalogue: {len(ours)} (GPU-only: {len(gpu_only)}); "
        f"unsupported or GPU-only undeclared: {unsupported}; "
        f"device side of the runtime unsupported: {device_only_unsupported}"
    )


def test_the_catalogue_claims_the_version_of_the_headers() -> None:
    """CUDART_VERSION, as the parse and the CPU backend define it, is the
    version of the toolkit headers the catalogue is checked against."""
    include = toolkit_include()
    assert include is not None
    text = (include / "cuda_runtime_api.h").read_text(errors="replace")
    m = re.search(r"^#define CUDART_VERSION\s+(\d+)", text, re.M)
    assert m is not None
    version = int(m[1])
    assert cuda_api.catalogue().cuda_version == version
    assert f"#define CUDART_VERSION {version}\n" in cuda_api.prelude()
    assert cpu_runtime.predefined_macros()["CUDART_VERSION"] == str(version)
    assert f"#define CUDART_VERSION {version}\n" in cpu_runtime.render("cuda_cpu.h.j2")


def test_the_catalogue_declares_nothing_the_headers_do_not() -> None:
    headers, ours = header_functions(), catalogue_functions()
    include = toolkit_include()
    assert include is not None
    # Older CUDA's functions, and those of headers these CUDA headers lack.
    legacy = {
        f.name
        for f in cuda_api.catalogue().functions
        if f.legacy or (f.header.endswith(".h") and not (include / f.header).exists())
    }
    extra = sorted(
        f"{d.name} {key[1]}"
        for key, d in ours.items()
        # operator new/delete: nvcc's compiler declares them (parse_declarations).
        if key not in headers and d.name not in legacy and not INTERNAL.search(d.name)
    )
    assert extra == []


def test_precompiled_prelude_parses_as_the_prelude_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """The precompiled prelude is only faster: the rewrite is the same without it."""
    assert "-include-pch" in parse_module.clang_args()
    here = Path(__file__).parent / "catalogue"
    sources = {
        p: source_text.read(p) for p in sorted(here.glob("*.cu")) if "unsupported" not in p.name
    }
    with_pch = {p: instrument(s, str(p)).source for p, s in sources.items()}
    monkeypatch.setattr(parse_module, "_prelude_pch", lambda: None)
    assert "-include-pch" not in parse_module.clang_args()
    assert {p: instrument(s, str(p)).source for p, s in sources.items()} == with_pch


def _top_level(scope: ci.Cursor) -> Iterator[ci.Cursor]:
    """Declarations at namespace scope, inside extern "C" blocks too."""
    for c in scope.get_children():
        if c.kind in SCOPES:
            yield from _top_level(c)
        else:
            yield c


def _structs(tu: ci.TranslationUnit, keep: object) -> dict[str, dict[str, ci.Type]]:
    """Every named struct defined at namespace scope: its fields and their types."""
    out = {}
    for c in _top_level(tu.cursor):
        if c.location.file is None or not keep(c.location.file.name):  # type: ignore[operator]
            continue
        if c.kind == K.STRUCT_DECL and c.is_definition():
            struct, name = c, c.spelling
        elif c.kind == K.TYPEDEF_DECL:  # typedef struct cudaUUID_st {...} cudaUUID_t
            struct, name = c.underlying_typedef_type.get_canonical().get_declaration(), c.spelling
            if struct.kind != K.STRUCT_DECL or not struct.is_definition():
                continue
        else:
            continue
        out[name] = {f.spelling: f.type for f in struct.get_children() if f.kind == K.FIELD_DECL}
    return out


def _enums(tu: ci.TranslationUnit, keep: object) -> dict[str, dict[str, int]]:
    out = {}
    for c in _top_level(tu.cursor):
        if c.kind != K.ENUM_DECL or not c.is_definition() or c.location.file is None:
            continue
        if keep(c.location.file.name):  # type: ignore[operator]
            out[c.spelling] = {
                e.spelling: e.enum_value for e in c.get_children()
                if e.kind == K.ENUM_CONSTANT_DECL
            }  # fmt: skip
    return out


def _same_type(a: ci.Type, b: ci.Type) -> bool:
    """The same type, or an anonymous union/struct of the same size (the two
    files' unnamed types have different names)."""
    if a.spelling == b.spelling and a.get_size() == b.get_size():
        return True  # cudaUUID_t: a typedef of another struct in the toolkit
    a, b = a.get_canonical(), b.get_canonical()
    if "(unnamed" in a.spelling or "(unnamed" in b.spelling:
        return a.get_size() == b.get_size()
    return a.spelling == b.spelling


def test_every_header_struct_field_is_in_the_catalogue() -> None:
    """A struct the catalogue declares has every field the toolkit's struct has,
    with the same type (code reads prop.hostNativeAtomicSupported or
    attrs.requiredClusterWidth); the catalogue's extra fields are exactly the
    older CUDA's fields it keeps, which the toolkit no longer has."""
    tu, source = catalogue_unit()
    headers, ours = _structs(header_unit(), in_toolkit), _structs(tu, lambda f: f == source)
    legacy = cuda_api.catalogue().legacy_fields
    shared = sorted(set(headers) & set(ours))
    assert "cudaDeviceProp" in shared and "cudaFuncAttributes" in shared
    for name in shared:
        theirs, mine = headers[name], ours[name]
        missing = [f for f in theirs if f not in mine]
        assert missing == [], f"struct {name}: fields the toolkit has: {missing}"
        wrong = [f for f in theirs if not _same_type(theirs[f], mine[f])]
        assert wrong == [], f"struct {name}: fields of another type: {wrong}"
        assert sorted(set(mine) - set(theirs)) == sorted(legacy.get(name, ())), name
    assert set(legacy) <= set(shared)


def test_every_header_enumerator_is_in_the_catalogue_with_its_value() -> None:
    tu, source = catalogue_unit()
    headers, ours = _enums(header_unit(), in_toolkit), _enums(tu, lambda f: f == source)
    shared = sorted(set(headers) & set(ours))
    assert "cudaDeviceAttr" in shared and "cudaError" in shared
    for name in shared:
        assert ours[name] == headers[name], name


def test_the_catalogue_pulls_in_the_system_headers_the_toolkit_headers_do() -> None:
    """nvcc includes cuda_runtime.h in every .cu; what it includes from the C
    and C++ libraries, user code sees without including it (gups.cu uses
    ptrdiff_t from <stddef.h> with only <stdint.h>, <stdio.h> and <stdlib.h>).
    The parse prelude and the CPU backend include the catalogue's list."""
    pulled = set()
    for inc in header_unit().get_includes():
        if in_toolkit(inc.source.name) and not in_toolkit(inc.include.name):
            text = Path(inc.source.name).read_text(errors="replace")
            line = text.splitlines()[inc.location.line - 1]
            m = re.match(r"\s*#\s*include\s*<([^>]+)>", line)
            assert m is not None, line
            pulled.add(m[1])
    assert {"stddef.h", "stdlib.h"} <= pulled
    assert sorted(pulled - set(cuda_api.catalogue().system_includes)) == []
