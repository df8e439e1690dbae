"""Uses of GPU-only features: counted for the GPU, refused for the CPU backend.

Textures, surfaces, CUDA arrays, graphs, IPC, memory pools, peer copies, the
driver API, cooperative launch, fp16/bf16, warp matrix operations, pipelines,
graphics interop and the toolkit's Thrust and CUB run natively on a GPU: an
instrumented copy compiled by nvcc against the real toolkit keeps using them.
hirace does not check what they read or write, nor monitor kernels they
launch, so every use in a user file is one warning naming the feature
(nothing silent). The CPU backend cannot run them at all: there the first
use is a one-line error naming the feature and the line (hirace_py.cuda_api:
`[gpu_only]` and `[gpu_only.libraries]` of the catalogue).
PTX assembly in device code (`asm("mov.u32 %0, %%laneid;" ...)`) is refused
the same way for the CPU backend, where the host's assembler would reject it;
an empty template (`asm volatile("" ::: "memory")`, a compiler barrier) is
kept. On a GPU it is the instrumenter's `asm` warning (not instrumented).
"""

from __future__ import annotations

from dataclasses import dataclass

import clang.cindex as ci

from hirace_py import cuda_api
from hirace_py.instrument.analyze import Planner
from hirace_py.instrument.parse import UnsupportedFeature

K = ci.CursorKind
_REFERENCES = (K.DECL_REF_EXPR, K.TYPE_REF, K.TEMPLATE_REF, K.OVERLOADED_DECL_REF, K.CALL_EXPR)
_FUNCTIONS = (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE)


@dataclass(frozen=True)
class Use:
    """One use of a GPU-only feature in a user file."""

    file: str  # as the user named it
    line: int
    column: int
    feature: str
    what: str  # the name used, or `#include <header>`
    acts: bool  # a call or an include (a type or a constant only names the feature)

    def refusal(self) -> str:
        """The CPU backend's one-line error for it."""
        message = cuda_api.unsupported_message(self.feature, self.what, cpu=True)
        return f"{self.file}:{self.line}: {message}"

    def warning(self) -> str:
        """The instrumenter's warning for it."""
        return (
            f"{self.feature} ({self.what}) runs on the GPU unchecked: memory it reads or "
            "writes is not tracked, kernels it launches are not monitored "
            "(the CPU backend does not run it)"
        )


def uses(planner: Planner) -> list[Use]:
    """Every use of a GPU-only feature in the user files, in source order."""
    cat = cuda_api.catalogue()
    found: dict[tuple[str, int, str], Use] = {}

    def add(c: ci.Cursor, feature: str, what: str, acts: bool) -> None:
        f = planner.file(c)
        name = planner.parsed.display if f.main else f.path
        loc = c.location
        found.setdefault((name, loc.line, what),
                         Use(name, loc.line, loc.column, feature, what, acts))  # fmt: skip

    for top in planner.top_level:
        if top.kind == K.INCLUSION_DIRECTIVE:
            feature = cat.gpu_only_headers.get(top.spelling) or (
                cat.gpu_only_libraries.get(top.spelling.split("/")[0]) if "/" in top.spelling
                else None)  # fmt: skip
            if feature is not None:
                add(top, feature, f"#include <{top.spelling}>", True)
            continue
        for c in top.walk_preorder():
            if c.kind not in _REFERENCES or planner.file_of(c) is None:
                continue
            ref = c.referenced
            if ref is None or ref.location.file is None or planner.file_of(ref) is not None:
                continue  # a user's own declaration
            overload = ref.type.spelling if ref.kind in _FUNCTIONS else ""
            feature = cuda_api.gpu_only_feature(ref.spelling, overload)
            if feature is not None:
                add(c, feature, ref.spelling, ref.kind in _FUNCTIONS)
    return sorted(found.values(), key=lambda u: (u.file, u.line, u.column))


def _device_assembly(planner: Planner) -> list[Use]:
    """PTX assembly statements (non-empty templates) in device functions of user files."""
    out = []
    for top in planner.top_level:
        for fn in top.walk_preorder():
            if fn.kind not in _FUNCTIONS and fn.kind != K.CXX_METHOD:
                continue
            kinds = {k.kind for k in fn.get_children()}
            if not kinds & {K.CUDADEVICE_ATTR, K.CUDAGLOBAL_ATTR}:
                continue
            for c in fn.walk_preorder():
                if c.kind not in (K.ASM_STMT, K.MS_ASM_STMT) or planner.file_of(c) is None:
                    continue
                strings = [t.spelling for t in planner.tokens(c) if t.kind == ci.TokenKind.LITERAL]
                if strings and strings[0] not in ('""', "''"):
                    f = planner.file(c)
                    name = planner.parsed.display if f.main else f.path
                    out.append(Use(name, c.location.line, c.location.column,
                                   "inline PTX assembly", "asm", True))  # fmt: skip
    return out


def refuse(planner: Planner) -> None:
    """UnsupportedFeature for the first use, for the CPU backend."""
    found = sorted(uses(planner) + _device_assembly(planner),
                   key=lambda u: (u.file, u.line, u.column))  # fmt: skip
    if found:
        raise UnsupportedFeature(found[0].refusal())
