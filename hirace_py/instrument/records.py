"""Struct layouts of kernel parameters, read from libclang's types.

A launch spec gives a struct argument (by value, or an array behind a pointer
to a struct) by field name; this module records where each field lies, as the
compiler that parsed the source lays it out (the CPU backend's g++ and nvcc
use the same x86-64/CUDA ABI for these plain structs).
"""

from __future__ import annotations

import clang.cindex as ci
import numpy as np

from hirace_py.arguments import SCALARS
from hirace_py.instrument.model import Field, Record

T = ci.TypeKind


class _Unsupported(Exception):
    """A field hirace cannot give by name; the message says which and why."""


def record_of(t: ci.Type) -> Record | None:
    """The layout of struct type `t` (or of what the pointer `t` points to); None if
    it is not a struct."""
    t = t.get_canonical()
    if t.kind == T.POINTER:
        t = t.get_pointee().get_canonical()
    if t.kind != T.RECORD:
        return None
    size = t.get_size()
    if size <= 0:
        return Record(0, (), f"{t.spelling} is incomplete here")
    try:
        fields = tuple(_fields(t, "", 0))
    except _Unsupported as exc:
        return Record(size, (), str(exc))
    return Record(size, fields)


def _fields(t: ci.Type, prefix: str, base: int) -> list[Field]:
    decl = t.get_declaration()
    if decl.kind == ci.CursorKind.UNION_DECL:
        raise _Unsupported(f"{prefix.rstrip('.') or t.spelling} is a union")
    out: list[Field] = []
    for f in t.get_fields():
        name = f"{prefix}{f.spelling}"
        if not f.spelling:
            raise _Unsupported(f"{t.spelling} has an anonymous member")
        if f.is_bitfield():
            raise _Unsupported(f"field {name} is a bit-field")
        offset = base + t.get_offset(f.spelling) // 8
        ft = f.type.get_canonical()
        count = 1
        if ft.kind == T.CONSTANTARRAY:
            count = ft.get_array_size()
            ft = ft.get_array_element_type().get_canonical()
        if ft.kind == T.RECORD and count == 1:
            out += _fields(ft, f"{name}.", offset)
        elif ft.kind == T.POINTER:
            out.append(Field(name, offset, "uint64", count, pointer=True))
        elif (dtype := SCALARS.get(ft.spelling)) is not None:
            out.append(Field(name, offset, np.dtype(dtype).name, count))
        else:
            raise _Unsupported(f"field {name} has type {f.type.spelling}")
    return out
