"""What instrumentation produces besides source: the tables the host needs.

Sites name access locations in the original source; variables name the
memory a race report points at; kernels describe parameters so the host can
register argument arrays with the right shadow granularity.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from hirace_py.errors import UnknownKernel


@dataclass(frozen=True)
class Site:
    """One instrumented access: an action at a place in the original source."""

    id: int
    file: str
    line: int
    column: int
    action: str
    """R, W, BA, GA, BL or GL."""
    function: str
    expr: str
    """The accessed expression as written (shortened)."""
    order: str = ""
    """A libcu++ atomic's memory order (hirace_py.instrument.libcu.ORDERS, or
    "unknown"); "" for every other access (the legacy atomics are relaxed)."""


@dataclass(frozen=True)
class Variable:
    """Memory a report can name: a kernel parameter, a __shared__ or __device__ variable."""

    id: int
    name: str
    space: str
    """'global' or 'shared'."""
    kind: str
    """'param', 'shared', 'dynamic_shared' or 'device'."""
    function: str
    """Kernel of a parameter or of a function-scope __shared__ variable; '' at file scope."""
    gran_log2: int
    """log2 of the bytes covered by one shadow word."""
    size: int = 0
    """Bytes, for static __shared__ and __device__ variables."""
    frame_offset: int = 0
    """Shadow words before this __shared__ variable in a block frame."""
    line: int = 0


@dataclass(frozen=True)
class Field:
    """A scalar field of a struct, flattened: `inner.x` for a field of a nested struct."""

    name: str
    offset: int
    """Bytes from the start of the struct."""
    dtype: str
    """NumPy dtype name of the field (of one element, for an array field)."""
    count: int = 1
    """Elements of an array field."""
    pointer: bool = False
    """A pointer field (held as uint64): only a spec can give it a meaningful value."""


@dataclass(frozen=True)
class Record:
    """The layout of a struct a kernel takes by value or points to, as the compiler lays it
    out, so that a launch spec can give its fields by name."""

    size: int
    fields: tuple[Field, ...]
    unsupported: str = ""
    """Why the fields cannot be given by name (a bit-field, a union, ...); "" if they can."""

    def dtype(self) -> np.dtype:
        """A NumPy structured dtype with this layout."""
        return np.dtype({
            "names": [f.name for f in self.fields],
            "formats": [np.dtype(f.dtype) if f.count == 1 else (np.dtype(f.dtype), (f.count,))
                        for f in self.fields],
            "offsets": [f.offset for f in self.fields],
            "itemsize": self.size,
        })  # fmt: skip


@dataclass(frozen=True)
class Param:
    """A kernel parameter as the launcher sees it."""

    name: str
    type: str
    pointer: bool
    var: int | None
    """Variable id for pointer parameters."""
    record: Record | None = None
    """The struct's layout, for a struct by value or a pointer to a struct."""


@dataclass(frozen=True)
class Kernel:
    name: str
    line: int
    params: tuple[Param, ...]
    shared_units: int = 0
    """Shadow words of a block frame for the static __shared__ variables it can use."""
    qualified: str = ""
    """Its name with its enclosing namespaces (`ns::k`), as NVRTC looks it up."""
    template: bool = False
    """A kernel template (no symbol until instantiated)."""


@dataclass(frozen=True)
class Warning:
    """Something the rewriter could not instrument, with where it is."""

    file: str
    line: int
    column: int
    code: str
    message: str
    subject: str = ""
    """What the warning is about, by name, where that matters to a reader: the
    kernel of a `launch` warning (programs drop it when another unit defines it)."""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: warning [{self.code}]: {self.message}"


@dataclass
class Tables:
    """Everything the host side needs to run instrumented code and read its reports."""

    sites: list[Site] = field(default_factory=list)
    variables: list[Variable] = field(default_factory=list)
    kernels: list[Kernel] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)
    dynamic_shared_gran_log2: int = 0
    dynamic_shared_offset: int = 0
    """Shadow words before dynamic shared memory in a frame (past every kernel's statics)."""
    group_log2: int = 5
    """log2 of the lanes in the runtime's lane groups, its warp level (docs/semantics.md 1.3)."""

    def kernel(self, name: str) -> Kernel:
        for k in self.kernels:
            if k.name == name:
                return k
        raise UnknownKernel(name, [k.name for k in self.kernels])

    def to_json(self) -> dict[str, Any]:
        return {
            "sites": [asdict(s) for s in self.sites],
            "variables": [asdict(v) for v in self.variables],
            "kernels": [asdict(k) for k in self.kernels],
            "warnings": [asdict(w) for w in self.warnings],
            "dynamic_shared_gran_log2": self.dynamic_shared_gran_log2,
            "dynamic_shared_offset": self.dynamic_shared_offset,
            "group_log2": self.group_log2,
        }
