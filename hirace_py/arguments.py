"""Launch arguments checked against a kernel's parameters, whatever the backend.

`check_arguments` is what every launch goes through before any backend sees
it: the count, arrays for pointers and scalars for the rest, an array's dtype
against a pointer to a scalar type, and a scalar's value against its type
(an integer for an integer type, in its range). Each mismatch is an
`ArgumentMismatch` naming the kernel and the parameter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from hirace_py.errors import ArgumentMismatch

if TYPE_CHECKING:  # at run time the import would cycle: instrument.records needs SCALARS
    from hirace_py.instrument.model import Kernel, Param

SCALARS: dict[str, type] = {
    "bool": np.bool_, "char": np.int8, "signed char": np.int8, "unsigned char": np.uint8,
    "short": np.int16, "unsigned short": np.uint16, "int": np.int32, "unsigned int": np.uint32,
    "unsigned": np.uint32, "long": np.int64, "unsigned long": np.uint64, "long long": np.int64,
    "unsigned long long": np.uint64, "size_t": np.uint64, "float": np.float32,
    "double": np.float64, "int8_t": np.int8, "uint8_t": np.uint8, "int16_t": np.int16,
    "uint16_t": np.uint16, "int32_t": np.int32, "uint32_t": np.uint32, "int64_t": np.int64,
    "uint64_t": np.uint64,
}  # fmt: skip
"""NumPy types of the C scalar types kernels take, by spelling."""

_QUALIFIERS = re.compile(r"\b(const|volatile|__restrict__|__restrict|struct)\b")


def base_type(c_type: str) -> str:
    """A C type without qualifiers, pointer stars or repeated spaces."""
    return " ".join(_QUALIFIERS.sub("", c_type).replace("*", " ").split())


def scalar_dtype(c_type: str) -> type | None:
    """NumPy type of a scalar C type (or of what a pointer points at); None if not a scalar."""
    return SCALARS.get(base_type(c_type))


def _mismatch(kernel: str, p: Param, text: str) -> ArgumentMismatch:
    return ArgumentMismatch(f"kernel {kernel} parameter {p.name} ({p.type}) {text}")


def _check_array(kernel: str, p: Param, a: np.ndarray) -> None:
    want = scalar_dtype(p.type) if p.type.count("*") == 1 else None
    if want is None:
        return  # a struct or a pointer to pointers: the backend checks what it can
    have = a.dtype
    chars = (np.int8, np.uint8, np.bool_)
    if have == np.dtype(want) or (want in chars and have.type in chars):
        return
    raise _mismatch(kernel, p, f"points to {np.dtype(want).name}, but got a {have.name} array")


def _check_scalar(kernel: str, p: Param, a: object) -> None:
    want = scalar_dtype(p.type)
    if want is None:
        return  # a struct by value: the backend checks its size
    if isinstance(a, np.generic):
        a = a.item()
    if want is np.bool_:
        if not isinstance(a, bool | int) or int(a) not in (0, 1):
            raise _mismatch(kernel, p, f"expects a bool, got {a!r}")
        return
    info = np.dtype(want)
    if info.kind in "iu":
        if isinstance(a, bool) or not isinstance(a, int):
            raise _mismatch(kernel, p, f"expects an integer, got {type(a).__name__} {a!r}")
        limits = np.iinfo(info)
        if not limits.min <= a <= limits.max:
            raise _mismatch(kernel, p, f"expects an integer in [{limits.min}, {limits.max}], "
                            f"got {a}")  # fmt: skip
    elif isinstance(a, bool) or not isinstance(a, int | float):
        raise _mismatch(kernel, p, f"expects a number, got {type(a).__name__} {a!r}")


def check_arguments(kernel: Kernel, args: Sequence[object]) -> None:
    """ArgumentMismatch naming the parameter unless `args` fit `kernel`'s parameters."""
    params = kernel.params
    if len(args) != len(params):
        names = ", ".join(p.name for p in params)
        raise ArgumentMismatch(
            f"kernel {kernel.name} takes {len(params)} arguments ({names}), got {len(args)}"
        )
    for p, a in zip(params, args, strict=True):
        if isinstance(a, np.ndarray):
            if not p.pointer:
                raise _mismatch(kernel.name, p, "is not a pointer, but got an array")
            _check_array(kernel.name, p, a)
        elif p.pointer:
            raise _mismatch(kernel.name, p, "is a pointer: pass a NumPy array, got "
                            f"{type(a).__name__}")  # fmt: skip
        else:
            _check_scalar(kernel.name, p, a)
