"""Launch specs (TOML): kernel, grid, block, shared memory and arguments.

The schema is documented in docs/launch-spec.md. Validation is strict: every
error names the file and the key, e.g. `spec.toml: launch[1].args.x.dtype`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from hirace_py import tomlfile
from hirace_py.errors import HiraceError
from hirace_py.instrument.model import Param, Record
from hirace_py.launch_config import LaunchConfig, Schedule

DTYPES = (
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64",
)  # fmt: skip
INITS = ("zeros", "ones", "arange", "random", "npy")
LAUNCH_KEYS = {"kernel", "grid", "block", "shared_bytes", "seed", "schedule", "args"}
ARRAY_KEYS = {"dtype", "length", "init", "seed", "low", "high", "fill", "path", "fields"}
STRUCT = "struct"
"""The dtype of an array of the struct a pointer parameter points to."""


Scalar = int | float | bool


class SpecError(HiraceError):
    """A bad launch spec; the message names the file and the key."""


@dataclass(frozen=True)
class ArraySpec:
    dtype: str
    length: int
    init: str = "zeros"
    seed: int = 0
    low: float = 0
    high: float = 100
    fill: float | None = None
    path: Path | None = None
    fields: dict[str, Scalar] = field(default_factory=dict)
    """For an array of structs: these fields of every element set to these values."""

    def build(self, record: Record | None = None) -> np.ndarray:
        """A fresh array initialised as the spec says (deterministic); an array of
        structs takes the struct's layout `record`, initialised field by field."""
        if self.dtype == STRUCT:
            assert record is not None
            dt = record.dtype()
            out = np.zeros(self.length, dt)
            for i, name in enumerate(dt.names or ()):
                part = replace(self, dtype=dt.fields[name][0].base.name, fields={},
                               seed=self.seed + i)  # fmt: skip
                column = part.build()
                out[name] = column.reshape(-1, *([1] * (out[name].ndim - 1)))
            for name, value in self.fields.items():
                out[name] = value
            return out
        dt = np.dtype(self.dtype)
        if self.init == "npy":
            assert self.path is not None
            arr = np.load(self.path)
            return np.ascontiguousarray(arr.astype(dt, copy=False).ravel())
        if self.init == "ones":
            return np.ones(self.length, dt)
        if self.init == "arange":
            return np.arange(self.length).astype(dt)
        if self.init == "random":
            rng = np.random.default_rng(self.seed)
            if dt.kind in "iu":
                return rng.integers(int(self.low), int(self.high), self.length).astype(dt)
            return rng.uniform(self.low, self.high, self.length).astype(dt)
        arr = np.zeros(self.length, dt)
        if self.fill is not None:
            arr[:] = self.fill
        return arr


@dataclass(frozen=True)
class StructSpec:
    """A struct passed by value: the fields given by name, the others zero."""

    fields: dict[str, Scalar]

    def build(self, record: Record) -> np.void:
        value = np.zeros(1, record.dtype())
        for name, v in self.fields.items():
            value[name] = v
        return value[0]


Arg = ArraySpec | StructSpec | int | float | bool


@dataclass(frozen=True)
class LaunchSpec:
    """One launch of a spec file: the kernel, how it launches, and its arguments by name."""

    kernel: str
    config: LaunchConfig
    args: dict[str, Arg] = field(default_factory=dict)

    def build_args(self, kernel_params: Sequence[Param], where: str) -> list[object]:
        """Arguments in parameter order; SpecError on missing or unknown names, and on
        struct fields the parameter's struct does not have."""
        params = [p.name for p in kernel_params]
        unknown = sorted(set(self.args) - set(params))
        if unknown:
            raise SpecError(f"{where}.args: unknown parameter(s) {', '.join(unknown)} of kernel "
                            f"{self.kernel} (parameters: {', '.join(params)})")  # fmt: skip
        missing = [p for p in params if p not in self.args]
        if missing:
            raise SpecError(f"{where}.args: missing parameter(s) {', '.join(missing)} "
                            f"of kernel {self.kernel}")  # fmt: skip
        return [_build(self.args[p.name], p, f"{where}.args.{p.name}") for p in kernel_params]


def _build(arg: Arg, p: Param, where: str) -> object:
    """The value of argument `arg` for parameter `p`."""
    wants_struct = isinstance(arg, StructSpec) or (isinstance(arg, ArraySpec)
                                                    and arg.dtype == STRUCT)  # fmt: skip
    if not wants_struct:
        return arg.build() if isinstance(arg, ArraySpec) else arg
    pointer = isinstance(arg, ArraySpec)
    record = p.record
    if record is None or p.pointer != pointer:
        what = "a pointer to a struct" if pointer else "a struct by value"
        raise SpecError(f"{where}: parameter {p.name} ({p.type}) is not {what}")
    if record.unsupported:
        raise SpecError(f"{where}: the fields of {p.type} cannot be given by name "
                        f"({record.unsupported})")  # fmt: skip
    names = [f.name for f in record.fields]
    for name in arg.fields:
        if name not in names:
            raise SpecError(f"{where}.fields.{name}: {p.type} has no field {name} "
                            f"(fields: {', '.join(names)})")  # fmt: skip
    return arg.build(record)


def _dims(where: str, value: Any) -> tuple[int, ...]:
    items = [value] if isinstance(value, int) and not isinstance(value, bool) else value
    if (
        not isinstance(items, list)
        or not 1 <= len(items) <= 3
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in items)
    ):
        raise SpecError(f"{where}: expected a positive int or a list of 1 to 3, got {value!r}")
    return tuple(items)


def _int(where: str, value: Any, lo: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise SpecError(f"{where}: expected an integer >= {lo}, got {value!r}")
    return value


def _array(where: str, doc: dict[str, Any], base: Path) -> ArraySpec:
    unknown = sorted(set(doc) - ARRAY_KEYS)
    if unknown:
        raise SpecError(f"{where}: unknown key(s) {', '.join(unknown)}; array arguments take "
                        f"{', '.join(sorted(ARRAY_KEYS))}")  # fmt: skip
    dtype = doc.get("dtype")
    if dtype not in (*DTYPES, STRUCT):
        raise SpecError(f"{where}.dtype: expected one of {', '.join(DTYPES)} or {STRUCT}, "
                        f"got {dtype!r}")  # fmt: skip
    if "fields" in doc and dtype != STRUCT:
        raise SpecError(f"{where}.fields: only an array of dtype = \"{STRUCT}\" has fields")
    if dtype == STRUCT and doc.get("init") == "npy":
        raise SpecError(f"{where}.init: an array of structs cannot be read from a .npy file")
    init = doc.get("init", "zeros")
    if init not in INITS:
        raise SpecError(f"{where}.init: expected one of {', '.join(INITS)}, got {init!r}")
    path = None
    if init == "npy":
        if not isinstance(doc.get("path"), str):
            raise SpecError(f"{where}.path: init = 'npy' needs a path to a .npy file")
        path = (base / doc["path"]).resolve()
        if not path.is_file():
            raise SpecError(f"{where}.path: no such file {path}")
        try:
            length = int(np.load(path, mmap_mode="r", allow_pickle=False).size)
        except (OSError, ValueError) as exc:
            raise SpecError(f"{where}.path: {path} is not a .npy array file ({exc})") from None
    else:
        length = _int(f"{where}.length", doc.get("length"), 1)
    for key in ("low", "high", "fill"):
        v = doc.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)):
            raise SpecError(f"{where}.{key}: expected a number, got {v!r}")
    return ArraySpec(
        dtype, length, init, _int(f"{where}.seed", doc.get("seed", 0)),
        doc.get("low", 0), doc.get("high", 100), doc.get("fill"), path,
        _fields(f"{where}.fields", doc.get("fields", {})),
    )  # fmt: skip


def _fields(where: str, doc: Any, prefix: str = "") -> dict[str, Scalar]:
    """Struct field values by dotted name (a nested table is a nested struct's fields)."""
    if not isinstance(doc, dict):
        raise SpecError(f"{where}: expected a table of field = value")
    out: dict[str, Scalar] = {}
    for name, value in doc.items():
        if isinstance(value, dict):
            out.update(_fields(f"{where}.{name}", value, f"{prefix}{name}."))
        elif isinstance(value, bool | int | float):
            out[f"{prefix}{name}"] = value
        else:
            raise SpecError(f"{where}.{name}: expected a number or a bool, got {value!r}")
    return out


def parse_launch(doc: Any, where: str, base: Path, extra: set[str] = frozenset()) -> LaunchSpec:
    """One launch table; keys in `extra` are allowed and ignored (manifest fields)."""
    if not isinstance(doc, dict):
        raise SpecError(f"{where}: expected a table")
    unknown = sorted(set(doc) - LAUNCH_KEYS - extra)
    if unknown:
        raise SpecError(f"{where}: unknown key(s) {', '.join(unknown)}; a launch takes "
                        f"{', '.join(sorted(LAUNCH_KEYS))}")  # fmt: skip
    kernel = doc.get("kernel")
    if not isinstance(kernel, str) or not kernel:
        raise SpecError(f"{where}.kernel: expected the kernel's name")
    try:
        schedule = Schedule.parse(doc.get("schedule", "inorder"), "schedule")
    except ValueError:
        raise SpecError(f"{where}.schedule: expected one of {', '.join(Schedule.names())}") \
            from None
    args: dict[str, Arg] = {}
    raw_args = doc.get("args", {})
    if not isinstance(raw_args, dict):
        raise SpecError(f"{where}.args: expected a table of parameter = value")
    for name, value in raw_args.items():
        if isinstance(value, dict) and set(value) == {"fields"}:
            args[name] = StructSpec(_fields(f"{where}.args.{name}.fields", value["fields"]))
        elif isinstance(value, dict):
            args[name] = _array(f"{where}.args.{name}", value, base)
        elif isinstance(value, bool | int | float):
            args[name] = value
        else:
            raise SpecError(f"{where}.args.{name}: expected a number, a bool or an array "
                            f"table, got {value!r}")  # fmt: skip
    config = LaunchConfig.of(
        _dims(f"{where}.grid", doc.get("grid")),
        _dims(f"{where}.block", doc.get("block")),
        _int(f"{where}.shared_bytes", doc.get("shared_bytes", 0)),
        _int(f"{where}.seed", doc.get("seed", 0)),
        schedule,
    )
    return LaunchSpec(kernel, config, args)


def load_toml(path: Path) -> dict[str, Any]:
    """A spec or manifest file's document; SpecError naming the file if unusable."""
    return tomlfile.read(path, "a TOML launch spec", SpecError)


def load(path: str | Path) -> list[LaunchSpec]:
    """All `[[launch]]` tables of a spec file, in order."""
    path = Path(path)
    doc = load_toml(path)
    unknown = sorted(set(doc) - {"launch"})
    if unknown:
        raise SpecError(f"{path}: unknown key(s) {', '.join(unknown)}; a spec holds [[launch]]")
    launches = doc.get("launch")
    if not isinstance(launches, list) or not launches:
        raise SpecError(f"{path}: expected at least one [[launch]] table")
    return [parse_launch(d, f"{path}: launch[{i}]", path.parent) for i, d in enumerate(launches)]
