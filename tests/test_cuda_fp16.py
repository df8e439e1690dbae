"""Half precision and bfloat16 (cuda_fp16.h, cuda_bf16.h) against the toolkit's headers.

The CPU backend compiles the toolkit's own number headers for their host side
and hirace's templates/cuda_cpu_fp16.h for what they declare for the device
only (hirace_py.cuda_api.NumberHeader). libclang parses the toolkit's headers
twice, as nvcc's device pass and as a host compiler reads them: every overload
of the first that the second lacks must be callable on the CPU backend with
the same parameter and result types. The instrumenter takes the headers'
functions that touch memory (pointer or reference parameters) for atomics,
loads and stores by the catalogue's names, and every other one for a function
of values: that every such function has a catalogued name is checked here.
The integer conversions, whose results are exact, are compared with Python's
arithmetic over every 16-bit value.
"""

from __future__ import annotations

import functools
import math
import re
import struct
import subprocess
import tempfile
from pathlib import Path

import clang.cindex as ci
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hirace_py import cuda_api
from hirace_py.backends import cpu_runtime
from hirace_py.backends.cpu_runtime import LIBRARY_NAME
from hirace_py.instrument import instrument
from hirace_py.instrument import parse as parse_module
from hirace_py.instrument.parse import UnsupportedFeature, system_include_dirs
from tests.test_cuda_api import INTERNAL, _args, _functions, _key

needs_toolkit = pytest.mark.skipif(
    cuda_api.toolkit_include() is None, reason="no CUDA toolkit headers (scripts/setup.sh)"
)

# The headers' own implementation details (their device branches call these).
DETAIL = re.compile(r"^__internal|_internal$|^__float_simpl")
NUMBERS = [h.name for h in cuda_api.catalogue().number_headers]
INTEGERS = {  # cuda_fp16.h's name of each integer type, with its range
    "int": ("int", -(2**31), 2**31 - 1),
    "uint": ("unsigned int", 0, 2**32 - 1),
    "short": ("short", -(2**15), 2**15 - 1),
    "ushort": ("unsigned short", 0, 2**16 - 1),
    "ll": ("long long", -(2**63), 2**63 - 1),
    "ull": ("unsigned long long", 0, 2**64 - 1),
}


def _parse(args: list[str]) -> ci.TranslationUnit:
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "numbers.cu"
        source.write_text("".join(f"#include <{h}>\n" for h in NUMBERS))
        return ci.Index.create().parse(str(source), args=args)


def _in_numbers(file: str) -> bool:
    return Path(file).name in cuda_api.number_header_files()


@functools.cache
def device_functions() -> dict[tuple[str, str], str]:
    """Every overload the number headers declare for nvcc's device pass (key:
    name and type), with its name, but the headers' implementation details."""
    include = cuda_api.toolkit_include()
    assert include is not None
    tu = _parse(_args(*cuda_api.toolkit_include_dirs()))
    return {k: d.name for k, d in _functions(tu, _in_numbers).items()
            if not DETAIL.search(d.name) and not INTERNAL.search(d.name)}  # fmt: skip


@functools.cache
def device_only() -> dict[tuple[str, str], str]:
    """The overloads of `device_functions` a host compiler does not see."""
    args = ["-x", "c++", "-std=c++17"]
    for d in cuda_api.toolkit_include_dirs():
        args += ["-I", d]
    for d in system_include_dirs():
        args += ["-isystem", d]
    host = _functions(_parse(args), _in_numbers)
    return {k: n for k, n in device_functions().items() if k not in host}


def _compile(source: str, tmp: Path, run: bool) -> str:
    """Compiles `source` as the CPU backend compiles kernels; runs it if `run`."""
    rt = cpu_runtime.runtime()
    path = tmp / "probe.cpp"
    path.write_text(source)
    out = tmp / "probe"
    link = [str(path), "-o", str(out), f"-L{rt.directory}", f"-l:{LIBRARY_NAME}",
            f"-Wl,-rpath,{rt.directory}"]  # fmt: skip
    args = [rt.cxx, *rt.flags, "-include", str(rt.launch_header), "-I", str(rt.include_dir),
            *(link if run else ["-fsyntax-only", str(path)])]  # fmt: skip
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-4000:]
    return subprocess.run([str(out)], capture_output=True, text=True, check=True).stdout \
        if run else ""  # fmt: skip


@needs_toolkit
def test_every_device_only_overload_is_callable_on_the_cpu_backend(tmp_path: Path) -> None:
    overloads = device_only()
    # The families the header declares for the device only: math, fused
    # multiply-adds, rounded integer conversions, loads, stores, atomics, shuffles.
    names = set(overloads.values())
    assert {"hsqrt", "h2exp", "__hfma", "__hcmadd", "__half2int_rd", "__ull2bfloat16_rz",
            "__ldg", "__stcg", "atomicAdd", "__shfl_down_sync"} <= names  # fmt: skip
    checks = []
    for (name, type_), _ in sorted(overloads.items()):
        ret, params = type_.split(" (", 1)
        params = params.rstrip(")")
        args = ", ".join(f"std::declval<{p.strip()}>()" for p in params.split(",") if p.strip())
        checks.append(f'static_assert(std::is_same<decltype({name}({args})), {ret}>::value, '
                      f'"{name} {type_}");')  # fmt: skip
    includes = "".join(f"#include <{h}>\n" for h in NUMBERS)
    _compile(f"{includes}#include <utility>\n" + "\n".join(checks) + "\n", tmp_path, run=False)
    print(f"{len(overloads)} device-only overloads of {len(names)} names")


@needs_toolkit
def test_functions_that_touch_memory_are_catalogued_atomics_loads_or_stores() -> None:
    """A call of a number header's function is instrumented by the catalogue's
    role of its name when it takes a pointer (atomicAdd(__half*, __half),
    __ldg(const __half2*)), and is otherwise a function of values."""
    include = cuda_api.toolkit_include()
    assert include is not None
    memory = cuda_api.names("atomic", "load", "store")
    tu = _parse(_args(*cuda_api.toolkit_include_dirs()))
    pointers = set()
    for c in tu.cursor.walk_preorder():
        if c.kind not in (ci.CursorKind.FUNCTION_DECL, ci.CursorKind.FUNCTION_TEMPLATE):
            continue
        if c.location.file is None or not _in_numbers(c.location.file.name):
            continue
        if _key(c) not in device_functions():
            continue
        kinds = {a.type.get_canonical().kind for a in c.get_arguments()}
        if kinds & {ci.TypeKind.POINTER, ci.TypeKind.LVALUEREFERENCE,
                    ci.TypeKind.RVALUEREFERENCE}:  # fmt: skip
            pointers.add(c.spelling)
    assert pointers, "the headers declare atomics and loads of the 16-bit types"
    assert sorted(pointers - memory) == []


def _half(bits: int) -> float:
    return struct.unpack("<e", struct.pack("<H", bits))[0]


def _bfloat16(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def _to_int(value: float, rounding: str, low: int, high: int) -> int:
    """CUDA's conversion: rounded, saturated to [low, high], NaN to 0."""
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return high if value > 0 else low
    r = {"rd": math.floor, "ru": math.ceil, "rn": round}[rounding](value)  # round: to even
    return max(low, min(high, int(r)))


@needs_toolkit
@pytest.mark.parametrize("kind", ["__half", "__bfloat16"])
def test_integer_conversions_are_exact_for_every_value(kind: str, tmp_path: Path) -> None:
    ctype = "__half" if kind == "__half" else "__nv_bfloat16"
    from_bits = "__ushort_as_half" if kind == "__half" else "__ushort_as_bfloat16"
    calls = [f"{kind}2{n}_{r}" for n in INTEGERS for r in ("rd", "rn", "ru")]
    body = " << ' ' << ".join(f"(long long){c}(v)" if not c.split("2")[-1].startswith("ull")
                              else f"{c}(v)" for c in calls)  # fmt: skip
    source = (
        "".join(f"#include <{h}>\n" for h in NUMBERS)
        + "#include <iostream>\nint main() {\n  for (unsigned b = 0; b < 65536; ++b) {\n"
        + f"    {ctype} v = {from_bits}((unsigned short)b);\n"
        + f"    std::cout << {body} << '\\n';\n  }}\n}}\n"
    )
    rows = _compile(source, tmp_path, run=True).splitlines()
    assert len(rows) == 65536
    value_of = _half if kind == "__half" else _bfloat16
    wrong = []
    for b, row in enumerate(rows):
        v = value_of(b)
        want = [_to_int(v, c[-2:], *INTEGERS[c.split("2")[-1][:-3]][1:]) for c in calls]
        got = [int(x) for x in row.split()]
        if got != want:
            wrong.append(f"{b:#06x} ({v}): got {got}, want {want}")
    assert wrong[:5] == []


def _bfloat16_round(x: int, direction: int) -> float:
    """The bfloat16 value of integer x rounded down (-1), up (1) or toward zero (0)."""
    if x == 0:
        return 0.0
    e = abs(x).bit_length() - 8  # 8 significant bits
    step = 2 ** max(e, 0)
    down = (x // step) * step
    up = down if down == x else down + step
    if direction == 0:
        direction = 1 if x < 0 else -1
    return float(down if direction < 0 else up)


@needs_toolkit
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**64 - 1), min_size=64, max_size=64))
def test_integers_to_bfloat16_round_as_asked(values: list[int]) -> None:
    """__ll2bfloat16_rd and its kin against exact integer arithmetic, on 64-bit
    values (where double would round first) and the small ones."""
    values = [*values, 1, -1, 255, 257, -257, 2**24 + 1, 2**53 + 1, 2**63 - 1, 2**64 - 1]
    lines = []
    for x in values:
        name, ctype = ("ull", "unsigned long long") if x >= 2**63 else ("ll", "long long")
        lit = f"{x}ull" if x >= 0 else f"(-{-x - 1}ll - 1)"
        for r in ("rd", "ru", "rz"):
            lines.append(f"  std::cout << __bfloat162float(__{name}2bfloat16_{r}(({ctype}){lit}))"
                         " << '\\n';")  # fmt: skip
    source = ("".join(f"#include <{h}>\n" for h in NUMBERS)
              + "#include <iostream>\n#include <iomanip>\nint main() {\n"
              + "  std::cout << std::setprecision(20);\n" + "\n".join(lines) + "\n}\n")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        got = [float(v) for v in _compile(source, Path(tmp), run=True).split()]
    want = [_bfloat16_round(x, d) for x in values for d in (-1, 1, 0)]
    assert got == want


def test_without_the_toolkit_headers_a_number_header_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where no toolkit headers are found, the parse's stand-in of each number
    header is an #error saying what is missing, and the CPU backend has no
    header of its own for them (so its stand-in is that #error too)."""
    stand_ins = cuda_api.stand_in_headers(())
    for name in NUMBERS:
        assert cuda_api.NO_TOOLKIT in stand_ins[name]
    monkeypatch.setattr(cuda_api, "toolkit_include", lambda: None)
    assert cpu_runtime.number_headers() == {}
    assert not set(NUMBERS) & set(cpu_runtime.cpu_headers())


def test_without_the_toolkit_headers_the_parse_names_what_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cuda_api, "toolkit_include_dirs", lambda: [])
    parse_module._stub_dir.cache_clear()
    try:
        with pytest.raises(UnsupportedFeature) as error:
            instrument("#include <cuda_bf16.h>\n__global__ void k() {}\n", "h.cu")
    finally:
        parse_module._stub_dir.cache_clear()
    assert str(error.value) == f"h.cu:1: bfloat16 (#include <cuda_bf16.h>): {cuda_api.NO_TOOLKIT}"
