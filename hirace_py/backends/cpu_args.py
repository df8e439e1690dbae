"""Kernel parameter types, and converting Python arguments to them.

Parameter types come from the compiler: each module exports, per kernel, a
string of type codes (written by `hr::TypeCode` in cuda_cpu_launch.h), e.g.
"i4,f4,*cf4,*f4" for `(int, float, const float*, float*)`. Pointer parameters
take C-contiguous NumPy arrays of a matching dtype (or None for a null pointer);
scalar parameters take Python or NumPy scalars, range-checked; struct
parameters take bytes (or an array) of exactly the struct's size. Anything
else is an `ArgumentMismatch` (a TypeError) that names the parameter.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from hirace_py.backends.cpu_source import Param
from hirace_py.errors import ArgumentMismatch

_CODE_RE = re.compile(r"(?:\*c?)*(?:v|x|b1|[iuf]\d+|s\d+a\d+)")


@dataclass(frozen=True)
class ParamType:
    """One parameter type code (see module doc)."""

    code: str

    @property
    def is_pointer(self) -> bool:
        return self.code.startswith("*")

    @property
    def pointee(self) -> ParamType:
        return ParamType(self.code[2:] if self.code.startswith("*c") else self.code[1:])

    @property
    def const_pointee(self) -> bool:
        return self.code.startswith("*c")

    @property
    def size(self) -> int:
        """Size in bytes of a value of this type (0 for void)."""
        if self.is_pointer:
            return 8
        if self.code in ("v", "x"):
            return 0
        if self.code.startswith("s"):
            return int(self.code[1:].split("a")[0])
        return int(self.code[1:])

    @property
    def align(self) -> int:
        if self.code.startswith("s"):
            return int(self.code.split("a")[1])
        return max(self.size, 1)

    @property
    def dtype(self) -> np.dtype | None:
        """The NumPy dtype of an arithmetic type, else None."""
        if self.code == "b1":
            return np.dtype(np.bool_)
        if self.code[0] in "iuf" and not self.is_pointer:
            return np.dtype(f"{self.code[0]}{self.code[1:]}")
        return None

    def describe(self) -> str:
        """The type in C words, for messages."""
        if self.is_pointer:
            const = "const " if self.const_pointee else ""
            return f"{const}{self.pointee.describe()}*"
        names = {
            "v": "void", "x": "unsupported type", "b1": "bool", "i1": "char", "u1": "unsigned char",
            "i2": "short", "u2": "unsigned short", "i4": "int", "u4": "unsigned int",
            "i8": "long long", "u8": "unsigned long long", "f4": "float", "f8": "double",
        }  # fmt: skip
        if self.code in names:
            return names[self.code]
        if self.code.startswith("s"):
            return f"struct of {self.size} bytes"
        return self.code


def parse_signature(text: str) -> list[ParamType]:
    """The parameter types of a kernel from its signature string."""
    if not text:
        return []
    types = []
    for item in text.split(","):
        if not _CODE_RE.fullmatch(item):
            raise ValueError(f"bad parameter type code {item!r}")
        types.append(ParamType(item))
    return types


@dataclass
class ArrayArgument:
    """An array passed for a pointer parameter."""

    position: int
    name: str
    array: np.ndarray
    element_size: int  # bytes per element as the kernel indexes it
    writes: bool  # the kernel may write through the pointer


# One converted argument: the bytes of a value, an array, or None (null pointer).
Converted = bytes | ArrayArgument | None


class _Mismatch(Exception):
    pass


def _describe_value(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"a {value.dtype} array of shape {value.shape}"
    return f"{type(value).__name__} {value!r}" if np.isscalar(value) else type(value).__name__


def _pointee_matches(pointee: ParamType, dtype: np.dtype, nbytes: int) -> bool:
    code = pointee.code
    if code == "v":
        return True
    if code in ("i1", "u1", "b1"):
        return dtype.itemsize == 1 and dtype.kind in "iub"
    if pointee.is_pointer:
        return dtype.kind in "iu" and dtype.itemsize == 8
    if code.startswith("s"):
        return nbytes % pointee.size == 0
    if code[0] in "iuf":
        return dtype.kind == code[0] and dtype.itemsize == pointee.size
    return False


def _expected_array(pointee: ParamType) -> str:
    code = pointee.code
    if code == "v":
        return "a NumPy array of any dtype"
    if code in ("i1", "u1", "b1"):
        return "a NumPy array of 1-byte elements (int8, uint8 or bool)"
    if pointee.is_pointer:
        return "a NumPy array of 64-bit addresses (uint64)"
    if code.startswith("s"):
        return f"a NumPy array whose size in bytes is a multiple of {pointee.size}"
    dtype = ParamType(code).dtype
    return f"a NumPy array of {dtype}"


def _convert_pointer(ptype: ParamType, value: object, position: int, name: str) -> Converted:
    if value is None:
        return None
    if not isinstance(value, np.ndarray):
        raise _Mismatch(f"expects {_expected_array(ptype.pointee)} or None")
    if ptype.pointee.code == "x" or not _pointee_matches(ptype.pointee, value.dtype, value.nbytes):
        raise _Mismatch(f"expects {_expected_array(ptype.pointee)}")
    if not value.flags.c_contiguous:
        raise _Mismatch("needs a C-contiguous array (use numpy.ascontiguousarray)")
    writes = not ptype.const_pointee
    if writes and not value.flags.writeable:
        raise _Mismatch("may be written by the kernel, but the array is read-only")
    size = ptype.pointee.size or value.dtype.itemsize
    return ArrayArgument(position, name, value, size, writes)


def _convert_integer(ptype: ParamType, value: object) -> bytes:
    if not isinstance(value, int | np.integer | np.bool_):
        raise _Mismatch("expects an integer")
    signed = ptype.code[0] == "i"
    number = int(value)
    bits = 8 * ptype.size
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not low <= number <= high:
        raise _Mismatch(f"expects an integer in [{low}, {high}]")
    return number.to_bytes(ptype.size, "little", signed=signed)


def _convert_float(ptype: ParamType, value: object) -> bytes:
    if isinstance(value, bool | np.bool_) or not isinstance(
        value, int | float | np.integer | np.floating
    ):
        raise _Mismatch("expects a real number")
    number = float(value)
    if ptype.size == 4:
        with np.errstate(over="ignore"):
            return np.float32(number).tobytes()
    return struct.pack("<d", number)


def _convert_struct(ptype: ParamType, value: object) -> bytes:
    if isinstance(value, np.ndarray | np.generic):
        data = value.tobytes()
    elif isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
    else:
        raise _Mismatch(f"expects {ptype.size} bytes (bytes or a NumPy array or record)")
    if len(data) != ptype.size:
        raise _Mismatch(f"expects exactly {ptype.size} bytes, got {len(data)}")
    return data


def _convert(ptype: ParamType, value: object, position: int, name: str) -> Converted:
    if ptype.is_pointer:
        return _convert_pointer(ptype, value, position, name)
    if ptype.code == "b1":
        if not isinstance(value, bool | np.bool_ | int | np.integer) or int(value) not in (0, 1):
            raise _Mismatch("expects a bool")
        return bytes([int(value)])
    if ptype.code[0] in "iu":
        return _convert_integer(ptype, value)
    if ptype.code[0] == "f":
        return _convert_float(ptype, value)
    if ptype.code.startswith("s"):
        return _convert_struct(ptype, value)
    raise _Mismatch("has a type the CPU backend cannot pass from Python")


def convert_arguments(
    kernel: str, params: list[Param], types: list[ParamType], args: Sequence[object]
) -> list[Converted]:
    """Converts `args` for a kernel with parameter names `params` and types
    `types`; raises ArgumentMismatch naming the parameter on any mismatch."""
    if isinstance(args, str | bytes) or not isinstance(args, Sequence):
        raise ArgumentMismatch(
            f"kernel `{kernel}`: args must be a list or tuple, not {type(args).__name__}"
        )
    names = (
        [p.name for p in params]
        if len(params) == len(types)
        else [f"arg{i}" for i in range(len(types))]
    )
    if len(args) != len(types):
        listing = ", ".join(f"{t.describe()} {n}" for n, t in zip(names, types, strict=True))
        raise ArgumentMismatch(
            f"kernel `{kernel}` takes {len(types)} argument{'s' if len(types) != 1 else ''} "
            f"({listing}), got {len(args)}"
        )
    converted: list[Converted] = []
    for position, (name, ptype, value) in enumerate(zip(names, types, args, strict=True)):
        try:
            converted.append(_convert(ptype, value, position, name))
        except _Mismatch as exc:
            raise ArgumentMismatch(
                f"kernel `{kernel}`: argument {position} `{name}` ({ptype.describe()}) {exc}; "
                f"got {_describe_value(value)}"
            ) from None
    return converted
