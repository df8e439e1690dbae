"""The CUDA API catalogue: every CUDA built-in hirace knows, from one data file.

`hirace_py/cuda_api.toml` names each device built-in, intrinsic, math
function, atomic (every overload nvcc declares), warp primitive, runtime API
function, type, macro and built-in variable that user code may use, with its
__host__/__device__ attributes and its role. Everything else is rendered from
it:

- the parse prelude libclang parses user code with (`prelude()`);
- the CPU backend's device API (`cpu_functions()`, `cpu_macros()`, ...,
  rendered by templates/cuda_cpu.h.j2);
- the instrumenter's classification of calls (`names(role)`, `atomic_scope`);
- the stand-ins for CUDA's headers (`stand_in_headers()`), and the clear
  errors for what hirace does not support (`unsupported_message`);
- the toolkit's 16-bit floating-point headers (`number_headers`), which
  both backends compile as they are, the CPU backend with hirace's
  implementation of their device-only functions;
- the features the GPU runs natively but hirace does not check or run on the
  CPU (`gpu_only_feature`, `gpu_only_headers`): the parse knows them, the
  instrumenter counts their uses, the CPU backend refuses them.

tests/test_cuda_api.py checks the catalogue against the CUDA toolkit's headers.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).with_name("cuda_api.toml")
PARAM_NAMES = "abcdefghijklmnop"
ROLES = frozenset(
    {
        "barrier", "value_barrier", "warp_barrier", "warp", "atomic", "load", "store",
        "fence", "untracked_memory", "math", "intrinsic", "vector", "runtime",
    }
)  # fmt: skip


class CatalogueError(ValueError):
    """The catalogue data file is malformed (a bug in hirace, named by line)."""


@dataclass(frozen=True)
class Function:
    """One declaration (one overload) of a CUDA function."""

    name: str
    ret: str
    params: tuple[str, ...]  # parameter types, each with its default argument if any
    template: str  # "template <...>" or ""
    space: frozenset[str]  # {"host"}, {"device"} or both: nvcc's attributes
    role: str
    header: str
    libc_host: bool  # the host side is the C/C++ library's declaration
    c_linkage: bool
    cpu: str | None  # CPU backend: an expression body, "engine", "program" or None
    rmw: str | None  # atomics: the new value from `old` and the arguments b, c
    legacy: bool  # an older CUDA's function, which CUDA 13's headers no longer declare
    gpu_only: bool  # declared for the parse only: the CPU backend refuses it

    @property
    def variadic(self) -> bool:
        return bool(self.params) and self.params[-1] == "..."

    @property
    def scope(self) -> str:
        """An atomic's scope: "block", "system" or "device"."""
        for scope in ("block", "system"):
            if self.name.endswith("_" + scope):
                return scope
        return "device"

    def signature(self, named: bool = False, template: bool = True) -> str:
        """`[template <...>] ret name(params)`; `named` names the parameters a, b, c, ..."""
        params = []
        for i, p in enumerate(self.params):
            if p == "...":
                params.append(p)
                continue
            ptype, _, default = p.partition(" = ")
            text = _declarator(ptype, PARAM_NAMES[i]) if named else ptype
            params.append(f"{text} = {default}" if default else text)
        lead = f"{self.template} " if self.template and template else ""
        return f"{lead}{self.ret} {self.name}({', '.join(params)})"

    def cpu_body(self) -> str | None:
        """The CPU backend's function body, or None if the backend has none here."""
        if self.rmw is not None and self.ret in _SCALARS:
            return (
                f"{{ {self.ret} old = *a; *a = ({self.ret})({self.rmw}); "
                "::hr::atomic_step(); return old; }"
            )
        if self.cpu is None or self.cpu in ("engine", "program"):
            return None
        return f"{{ {'' if self.ret == 'void' else 'return '}{self.cpu}; }}"


_SCALARS = frozenset(
    {"int", "unsigned int", "unsigned long long", "long long", "float", "double",
     "unsigned short", "long", "unsigned long"}
)  # fmt: skip


def _declarator(ptype: str, name: str) -> str:
    """A parameter declaration: `float*` + `a` -> `float* a`."""
    return f"{ptype} {name}"


@dataclass(frozen=True)
class Libcu:
    """libcu++'s atomics as the instrumenter and the CPU backend know them."""

    headers: tuple[str, ...]
    objects: tuple[str, ...]
    """Qualified names of the classes whose objects are atomic (cuda::atomic)."""
    references: tuple[str, ...]
    """Qualified names of the classes that refer to an atomic object (cuda::atomic_ref)."""
    fences: tuple[str, ...]
    scopes: tuple[str, ...]
    """Scope names by the value of their thread_scope enumerator."""
    members: dict[str, str]
    """Member name -> "load", "store", "rmw" or "none"."""
    fetch: dict[str, str]
    """fetch_ member -> its new value from `old` and `v` (CPU backend)."""
    operators: dict[str, str]
    """Compound assignment operator -> the fetch_ member it is built on."""


@dataclass(frozen=True)
class NumberHeader:
    """A toolkit header of 16-bit floating-point types (cuda_fp16.h): both
    backends compile the toolkit's own; the CPU backend adds `cpu`, hirace's
    implementation of the functions the header declares for the device only."""

    name: str
    feature: str
    files: tuple[str, ...]  # the files its declarations live in
    cpu: str  # a file of templates/


@dataclass(frozen=True)
class Catalogue:
    """The parsed data file."""

    functions: tuple[Function, ...]
    cuda_version: int
    """CUDART_VERSION of the toolkit headers the catalogue is checked against."""
    macros: dict[str, dict[str, str]]
    builtins: dict[str, str]
    vector_bases: tuple[tuple[str, str, int], ...]
    system_includes: tuple[str, ...]
    stand_in_headers: tuple[str, ...]
    unsupported_headers: dict[str, str]
    gpu_only_headers: dict[str, str]
    gpu_only_libraries: dict[str, str]  # header directory -> feature
    gpu_only_patterns: tuple[tuple[re.Pattern[str], str], ...]
    gpu_only_types: str
    parse_real_headers: tuple[str, ...]
    number_headers: tuple[NumberHeader, ...]
    unsupported_overloads: tuple[tuple[re.Pattern[str], str], ...]
    unsupported_device_side: dict[str, str]  # role -> feature
    device_types: str
    parse_declarations: str
    runtime_errors: tuple[tuple[str, int, str], ...]
    # name, value, the CPU device's answer (None: not an attribute to query,
    # such as cudaDevAttrMax or a reserved value: cudaErrorInvalidValue)
    device_attributes: tuple[tuple[str, int, str | None], ...]
    runtime_types: str
    legacy_fields: dict[str, tuple[str, ...]]  # struct -> fields older CUDA had
    libcu: Libcu

    def names(self, *roles: str) -> frozenset[str]:
        """Names of the functions with any of these roles."""
        unknown = set(roles) - ROLES
        if unknown:
            raise KeyError(f"unknown roles {sorted(unknown)}")
        return frozenset(f.name for f in self.functions if f.role in roles)

    def gpu_only_feature(self, name: str, overload: str = "") -> str | None:
        """The GPU-only feature an identifier belongs to, or None; `overload`
        (a function's type) also finds GPU-only overloads of a name the CPU
        backend supports otherwise."""
        for pattern, feature in self.gpu_only_patterns:
            if pattern.search(name):
                return feature
        for pattern, feature in self.unsupported_overloads if overload else ():
            if pattern.search(f"{name} {overload}"):
                return feature
        return None


_DECL = re.compile(r"^(?P<template>template\s*<.*?>\s*)?(?P<ret>[^(]*?)\s*\b(?P<name>\w+)\s*\(")


def _split_params(text: str) -> tuple[str, ...]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return tuple(p for p in parts if p != "void")


def parse_declaration(line: str) -> tuple[str, str, str, tuple[str, ...], str | None]:
    """(template, ret, name, params, cpu) of a catalogue line `decl [= body]`."""
    m = _DECL.match(line)
    if m is None:
        raise CatalogueError(f"cannot read the declaration {line!r}")
    depth, i = 0, m.end() - 1
    for i in range(m.end() - 1, len(line)):
        depth += {"(": 1, ")": -1}.get(line[i], 0)
        if depth == 0:
            break
    if depth != 0:
        raise CatalogueError(f"unbalanced parentheses in {line!r}")
    params = _split_params(line[m.end() : i])
    rest = line[i + 1 :].strip()
    cpu = None
    if rest:
        if not rest.startswith("="):
            raise CatalogueError(f"unexpected text after the declaration: {line!r}")
        cpu = rest[1:].strip()
    template = (m["template"] or "").strip()
    return template, m["ret"].strip(), m["name"], params, cpu


@functools.cache
def catalogue() -> Catalogue:
    """The catalogue, read once."""
    data = tomllib.loads(DATA.read_text())
    functions = []
    for group in data["group"]:
        role = group["role"]
        if role not in ROLES:
            raise CatalogueError(f"group of {group['header']}: unknown role {role!r}")
        space = frozenset(group["space"].split())
        for line in group["decls"].strip().splitlines():
            template, ret, name, params, cpu = parse_declaration(line.strip())
            functions.append(
                Function(
                    name=name,
                    ret=ret,
                    params=params,
                    template=template,
                    space=space,
                    role=role,
                    header=group["header"],
                    libc_host=group.get("host_decl") == "libc",
                    c_linkage=group.get("linkage") == "C",
                    cpu=group.get("cpu", cpu),
                    rmw=group.get("rmw"),
                    legacy=bool(group.get("legacy")),
                    gpu_only=bool(group.get("gpu_only")),
                )
            )
    unsupported, gpu_only = data["unsupported"], data["gpu_only"]
    patterns = tuple((re.compile(p), feature) for p, feature in gpu_only["patterns"].items())
    overloads = tuple((re.compile(p), feature) for p, feature in unsupported["overloads"].items())
    for f in functions:
        by_overload = any(p.search(f"{f.name} {', '.join(f.params)}") for p, _ in overloads)
        if f.gpu_only and not by_overload and not any(p.search(f.name) for p, _ in patterns):
            raise CatalogueError(
                f"GPU-only {f.name} matches no [gpu_only.patterns] or [unsupported.overloads]"
            )
    return Catalogue(
        functions=tuple(functions),
        cuda_version=int(data["toolkit"]["cuda_version"]),
        macros=data["macros"],
        builtins=data["builtins"],
        vector_bases=tuple((n, t, int(s)) for n, t, s in data["vectors"]["bases"]),
        system_includes=tuple(data["system_includes"]),
        stand_in_headers=tuple(data["stand_in_headers"]),
        unsupported_headers=unsupported["headers"],
        gpu_only_headers=gpu_only["headers"],
        gpu_only_libraries=gpu_only["libraries"],
        gpu_only_patterns=patterns,
        gpu_only_types=gpu_only["types"],
        parse_real_headers=tuple(gpu_only["parse_real_headers"]),
        number_headers=tuple(
            NumberHeader(name, h["feature"], tuple(h["files"]), h["cpu"])
            for name, h in data["number_headers"].items()
        ),
        device_types=data["device_types"],
        parse_declarations=data["parse_declarations"],
        unsupported_overloads=overloads,
        unsupported_device_side=unsupported["device_side"],
        runtime_errors=tuple((n, int(v), t) for n, v, t in data["runtime"]["errors"]),
        device_attributes=tuple(
            (row[0], int(row[1]), row[2] if len(row) > 2 else None)
            for row in data["runtime"]["device_attributes"]
        ),
        runtime_types=data["runtime"]["types"],
        legacy_fields={k: tuple(v) for k, v in data["runtime"]["legacy_fields"].items()},
        libcu=_libcu(data["libcu"]),
    )


def _libcu(data: dict) -> Libcu:
    kinds = {"load", "store", "rmw", "none"}
    bad = {m: k for m, k in data["members"].items() if k not in kinds}
    if bad:
        raise CatalogueError(f"[libcu.members]: unknown kinds {bad}")
    missing = set(data["fetch"]) - set(data["members"])
    missing |= set(data["operators"].values()) - set(data["fetch"])
    if missing:
        raise CatalogueError(f"[libcu]: fetch members without a kind or body: {sorted(missing)}")
    return Libcu(
        headers=tuple(data["headers"]),
        objects=tuple(data["objects"]),
        references=tuple(data["references"]),
        fences=tuple(data["fences"]),
        scopes=tuple(data["scopes"]),
        members=dict(data["members"]),
        fetch=dict(data["fetch"]),
        operators=dict(data["operators"]),
    )


@functools.cache
def toolkit_include() -> Path | None:
    """The CUDA toolkit's include directory, for headers hirace does not stand
    in for (cooperative_groups.h, libcu++, CUB, Thrust): $HIRACE_CUDA_INCLUDE,
    else /usr/local/cuda/include, else the nvidia-cuda-* wheels' (see
    scripts/setup.sh); None if there is none."""
    candidates = [os.environ.get("HIRACE_CUDA_INCLUDE", ""), "/usr/local/cuda/include"]
    candidates += [str(Path(p) / "nvidia" / "cu13" / "include") for p in sys.path]
    for c in candidates:
        if c and (Path(c) / "crt" / "math_functions.h").exists():
            return Path(c).resolve()
    return None


NO_TOOLKIT = (
    "needs the CUDA toolkit's headers, which hirace found in neither $HIRACE_CUDA_INCLUDE, "
    "/usr/local/cuda/include nor the nvidia-cuda-runtime wheel (scripts/setup.sh installs it)"
)


def number_header_files() -> frozenset[str]:
    """The file names of the number headers' declarations (cuda_fp16.hpp, ...)."""
    return frozenset(f for h in catalogue().number_headers for f in h.files)


def toolkit_include_dirs() -> list[str]:
    """The toolkit's include directories (its own and libcu++'s), or none."""
    root = toolkit_include()
    if root is None:
        return []
    return [str(root)] + ([str(root / "cccl")] if (root / "cccl").is_dir() else [])


def names(*roles: str) -> frozenset[str]:
    """Names of the catalogue's functions with any of these roles."""
    return catalogue().names(*roles)


def atomic_scopes() -> dict[str, str]:
    """Every atomic's name and its scope ("block", "device" or "system")."""
    return {f.name: f.scope for f in catalogue().functions if f.role == "atomic"}


def gpu_only_feature(name: str, overload: str = "") -> str | None:
    """The GPU-only feature an identifier (of type `overload`) names, or None."""
    return catalogue().gpu_only_feature(name, overload)


def stand_in_headers(real: tuple[str, ...] = ()) -> dict[str, str]:
    """Every header hirace stands in for, with its text: empty for CUDA's own,
    an #error naming the feature for a header of something unsupported or
    GPU-only, or a number header where there are no toolkit headers. `real`
    names the include directories where the parse may read a GPU-only header,
    a number header (or one of `parse_real_headers`) as it is: those found
    there get no stand-in. The CPU backend passes none (and replaces the
    number headers' stand-ins where the toolkit has them:
    hirace_py.backends.cpu_runtime.cpu_headers)."""
    cat = catalogue()
    out = {name: "" for name in cat.stand_in_headers}
    for name, feature in (*cat.unsupported_headers.items(), *cat.gpu_only_headers.items()):
        out[name] = f'#error "{unsupported_message(feature, name)}"\n'
    for h in cat.number_headers:
        out[h.name] = f'#error "{h.feature} (#include <{h.name}>): {NO_TOOLKIT}"\n'
    numbers = (h.name for h in cat.number_headers)
    for name in (*cat.gpu_only_headers, *numbers, *cat.parse_real_headers):
        if any((Path(d) / name).is_file() for d in real):
            del out[name]
    return out


def unsupported_message(feature: str, what: str, cpu: bool = False) -> str:
    """The one-line message for a use of something unsupported (`cpu`: by
    the CPU backend only, the feature being GPU-only)."""
    by = "hirace's CPU backend" if cpu else "hirace"
    return f"{feature} ({what}): not supported by {by}"


def vector_types() -> list[dict[str, object]]:
    """Each vector type: name, element type, fields and alignment (CUDA's)."""
    types = []
    for name, ctype, size in catalogue().vector_bases:
        for n in (1, 2, 3, 4):
            # CUDA aligns 1-, 2- and 4-vectors to their size (at most 16);
            # 3-vectors only to their element.
            align = size if n in (1, 3) else min(size * n, 16)
            types.append(
                {"name": f"{name}{n}", "ctype": ctype, "fields": "xyzw"[:n], "align": align}
            )
    return types


def _attributes(f: Function, exact: bool) -> str:
    space = f.space
    if not exact and f.libc_host:
        space = space - {"host"}
    return " ".join(f"__{s}__" for s in ("host", "device") if s in space)


def version_macros() -> dict[str, dict[str, str]]:
    """The version macros nvcc's headers define, from the catalogue's CUDA
    version (as [macros] entries: `parse` and `cpu` definitions)."""
    v = catalogue().cuda_version
    values = {
        "CUDART_VERSION": v,
        "CUDA_VERSION": v,
        "__CUDACC_VER_MAJOR__": v // 1000,
        "__CUDACC_VER_MINOR__": v % 1000 // 10,
        "__CUDACC_VER_BUILD__": 0,
    }
    return {name: {"parse": str(n), "cpu": str(n)} for name, n in values.items()}


def prelude(exact: bool = False) -> str:
    """The parse prelude: declarations of the whole catalogue for libclang.

    `exact` renders every function with nvcc's attributes and includes no
    system header but those its types need: the catalogue as nvcc declares it,
    for comparing with the toolkit's headers. (The parse prelude declares only
    the device side of what the C library declares for the host.)"""
    cat = catalogue()
    out = [
        "// hirace parse prelude, rendered from hirace_py/cuda_api.toml: do not edit.",
        "// libclang parses user code in CUDA mode with this force-included; the CUDA",
        "// headers user code includes are empty stand-ins. Only ever parsed, never",
        "// compiled: declarations need no definitions.",
        "#pragma once",
    ]
    for name, value in {**version_macros(), **cat.macros}.items():
        if "parse" in value:
            out.append(f"#define {name} {value['parse']}".rstrip())
    if exact:
        out += ["#include <stddef.h>", "typedef long clock_t;  // as glibc's"]
    else:
        out += [f"#include <{h}>" for h in cat.system_includes]
    for v in vector_types():
        fields = ", ".join(v["fields"])  # type: ignore[arg-type]
        aligned = f"__attribute__((aligned({v['align']})))"
        out.append(f"struct {aligned} {v['name']} {{ {v['ctype']} {fields}; }};")
    out += [
        "struct dim3 {",
        "  unsigned int x, y, z;",
        "  __host__ __device__ dim3(unsigned int = 1, unsigned int = 1, unsigned int = 1);",
        "  __host__ __device__ dim3(uint3 v);",
        "  __host__ __device__ operator uint3() const;",
        "};",
    ]
    out += [f"extern __device__ const {t} {n};" for n, t in cat.builtins.items()]
    out.append(cat.device_types)
    out.append(runtime_types())
    out.append(cat.gpu_only_types)
    out.append(cat.parse_declarations)
    for f in cat.functions:
        attributes = _attributes(f, exact)
        decl = " ".join(x for x in (f.template, attributes, f.signature(template=False)) if x)
        decl += ";"
        out.append(f'extern "C" {decl}' if f.c_linkage else decl)
    return "\n".join(out) + "\n"


def cpu_functions() -> list[dict[str, str]]:
    """The device API functions the CPU backend's header defines or declares:
    {"signature", "body"} with body None for a declaration that is an error
    to call (no CPU implementation)."""
    out = []
    for f in catalogue().functions:
        if f.role == "runtime" or f.cpu in ("engine", "program") or f.libc_host or f.gpu_only:
            continue
        out.append({"signature": f.signature(named=True), "body": f.cpu_body(), "name": f.name})
    return out


def device_types() -> str:
    """C declarations of the types device functions use (besides vectors)."""
    return catalogue().device_types


def runtime_types() -> str:
    """C declarations of the runtime API's types and constants, the error and
    device attribute enums first."""
    cat = catalogue()
    errors = "".join(f"  {n} = {v},\n" for n, v, _ in cat.runtime_errors)
    attributes = "".join(f"  {n} = {v},\n" for n, v, _ in cat.device_attributes)
    return (
        f"enum cudaError {{\n{errors}}};\ntypedef enum cudaError cudaError_t;\n"
        f"enum cudaDeviceAttr {{\n{attributes}}};\n{cat.runtime_types}"
    )


def cpu_macros() -> dict[str, str]:
    """Macros the CPU backend's header defines, with their values."""
    return {n: v["cpu"] for n, v in catalogue().macros.items() if "cpu" in v}
