"""Launches generated from a kernel's parameters: checking without a spec, and
starting specs (`hirace spec`).

A kernel's pointers to scalar types get arrays of that type, sized from the
launch: `ARRAY_FACTOR` elements per thread of the grid, plus the largest
integer scalar argument (kernels index `a[i]`, `a[i + 1]`, `a[n + i]`...),
filled with random values from the launch's seed. Integer scalars are the
grid's thread count unless given (`--arg n=1024`), floating ones 1.0, bools
true. Parameters whose type the tables cannot size (structs, pointers to
pointers, templates) need a value from the user: `GenerateError` names them.
"""

from __future__ import annotations

import numpy as np

from hirace_py.arguments import base_type, scalar_dtype
from hirace_py.errors import UsageError
from hirace_py.instrument.model import Kernel, Param
from hirace_py.launch_config import LaunchConfig, Schedule
from hirace_py.launchspec import DTYPES, STRUCT, Arg, ArraySpec, LaunchSpec, Scalar, StructSpec

ARRAY_FACTOR = 2
"""Array elements per thread of the grid."""


class GenerateError(UsageError):
    """A parameter hirace cannot make an argument for; the message names it."""


def parse_args(values: list[str]) -> dict[str, int | float | bool]:
    """`--arg NAME=VALUE` options: integers, floats, true/false."""
    out: dict[str, int | float | bool] = {}
    for item in values:
        name, eq, text = item.partition("=")
        if not eq or not name.isidentifier():
            raise UsageError(f"--arg {item}: expected NAME=VALUE (a parameter and a number)")
        lowered = text.strip().lower()
        if lowered in ("true", "false"):
            out[name] = lowered == "true"
            continue
        try:
            out[name] = int(text, 0)
        except ValueError:
            try:
                out[name] = float(text)
            except ValueError:
                raise UsageError(f"--arg {item}: {text!r} is not a number or true/false") from None
    return out


def _dtype(p: Param) -> str | None:
    """The launch-spec dtype of what a pointer parameter points to, if a scalar or a
    struct of scalars."""
    if p.type.count("*") != 1:
        return None
    if p.record is not None:
        makeable = not p.record.unsupported and not any(f.pointer for f in p.record.fields)
        return STRUCT if makeable else None
    want = scalar_dtype(p.type)
    if want is None:
        return None
    name = np.dtype(want).name
    return "uint8" if name == "bool" else name if name in DTYPES else None


def launch(
    kernel: Kernel,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    given: dict[str, int | float | bool],
    seed: int = 0,
    schedule: Schedule = Schedule.inorder,
) -> LaunchSpec:
    """A launch of `kernel` with every argument made, or taken from `given`."""
    names = {p.name for p in kernel.params}
    unknown = sorted(set(given) - names)
    if unknown:
        listing = ", ".join(sorted(names)) or "none"
        raise GenerateError(f"--arg {', '.join(unknown)}: kernel {kernel.name} has no such "
                            f"parameter (parameters: {listing})")  # fmt: skip
    threads = grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2]
    scalars: dict[str, int | float | bool] = {}
    structs: dict[str, StructSpec] = {}
    for p in kernel.params:
        if p.pointer:
            if p.name in given:
                raise GenerateError(f"--arg {p.name}: parameter {p.name} ({p.type}) is a "
                                    "pointer; its array is generated (or give a spec)")  # fmt: skip
            continue
        if p.name in given:
            scalars[p.name] = given[p.name]
            continue
        if p.record is not None:
            structs[p.name] = StructSpec(_struct_fields(kernel, p, threads))
            continue
        want = scalar_dtype(p.type)
        if want is None:
            raise GenerateError(f"kernel {kernel.name} parameter {p.name} ({p.type}): cannot "
                                "make a value of this type; give a launch spec")  # fmt: skip
        scalars[p.name] = _default(np.dtype(want), threads)
    extra = max([v for v in scalars.values() if isinstance(v, int) and not isinstance(v, bool)]
                + [0])  # fmt: skip
    length = ARRAY_FACTOR * threads + max(extra, 0)
    args: dict[str, Arg] = {**scalars, **structs}
    for p in kernel.params:
        if not p.pointer:
            continue
        dtype = _dtype(p)
        if dtype is None:
            what = base_type(p.type) or p.type
            raise GenerateError(f"kernel {kernel.name} parameter {p.name} ({p.type}): cannot "
                                f"make an array of {what}; give a launch spec")  # fmt: skip
        args[p.name] = ArraySpec(dtype, length, "random", seed)
    return LaunchSpec(kernel.name, LaunchConfig.of(grid, block, 0, seed, schedule), args)


def launches(kernel: Kernel, grid: tuple[int, int, int], block: tuple[int, int, int],
             given: dict[str, int | float | bool], seeds: int) -> list[LaunchSpec]:  # fmt: skip
    """`seeds` launches: seed 0 in thread order, then seeds 1.. with random schedules
    (the CPU backend's; a GPU schedules as it does), each with fresh random inputs."""
    return [launch(kernel, grid, block, given, s, Schedule.inorder if s == 0 else Schedule.random)
            for s in range(seeds)]  # fmt: skip


def to_toml(specs: list[LaunchSpec], header: str) -> str:
    """Launch specs as a spec file (docs/launch-spec.md), `header` as its first comment."""
    out = [f"# {line}" if line else "#" for line in header.splitlines()]
    for spec in specs:
        launch = spec.config
        out += ["", "[[launch]]", f'kernel = "{spec.kernel}"',
                f"grid = {_dims(launch.grid)}", f"block = {_dims(launch.block)}"]  # fmt: skip
        if launch.schedule != Schedule.inorder:
            out += [f"seed = {launch.seed}", f'schedule = "{launch.schedule.name}"']
        out.append("[launch.args]")
        for name, value in spec.args.items():
            out.append(f"{name} = {_value(value)}")
    return "\n".join(out) + "\n"


def _dims(dims: tuple[int, ...]) -> str:
    trimmed = list(dims)
    while len(trimmed) > 1 and trimmed[-1] == 1:
        trimmed.pop()
    return str(trimmed[0]) if len(trimmed) == 1 else str(trimmed)


def _default(dtype: np.dtype, threads: int) -> int | float | bool:
    """The value of a scalar nobody gave: true, the grid's thread count, or 1.0."""
    return True if dtype.kind == "b" else threads if dtype.kind in "iu" else 1.0


def _struct_fields(kernel: Kernel, p: Param, threads: int) -> dict[str, Scalar]:
    """Every field of struct parameter `p` by the scalar defaults; GenerateError if
    a field cannot be made (a pointer) or the struct cannot be given by fields."""
    assert p.record is not None
    why = p.record.unsupported or next(
        (f"field {f.name} is a pointer" for f in p.record.fields if f.pointer), "")
    if why:
        raise GenerateError(f"kernel {kernel.name} parameter {p.name} ({p.type}): cannot make "
                            f"a value of this struct ({why}); give a launch spec")  # fmt: skip
    return {f.name: _default(np.dtype(f.dtype), threads) for f in p.record.fields}


def _value(value: Arg) -> str:
    if isinstance(value, StructSpec):
        fields = ", ".join(f'"{name}" = {_value(v)}' for name, v in value.fields.items())
        return f"{{ fields = {{ {fields} }} }}"
    if isinstance(value, ArraySpec):
        return (f'{{ dtype = "{value.dtype}", length = {value.length}, init = "{value.init}", '
                f"seed = {value.seed} }}")  # fmt: skip
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)
