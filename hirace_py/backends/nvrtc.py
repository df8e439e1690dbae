"""The CuPy backend's compile step: instrumented source to a GPU binary with NVRTC.

NVRTC compiles device code only and ships no host headers, so it rejects
kernels nvcc accepts because they `#include <cstdio>`, `<cuda_runtime.h>`,
`<cstdint>`... The compile route here puts a directory of stand-ins first on
NVRTC's include path: empty files for CUDA's headers and for the host
headers whose device-usable part NVRTC declares itself (printf, assert,
malloc, memcpy, the math library), and small definitions for the ones it
does not (`<cstdint>`, `<climits>`, `<cfloat>`). Other includes resolve as
with nvcc, through the given include directories, then the toolkit's
libcu++ (`<cuda/atomic>`, which supports NVRTC) where a toolkit is found.

NVRTC is loaded with ctypes: from the `nvidia-cuda-nvrtc` wheel when it is
installed (CuPy's own choice too), else from the CUDA toolkit. `compile_module`
needs no GPU, so CI compiles every kernel exactly as the CuPy backend does:
`CupyModule` calls the same function, with the device's architecture.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import glob
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from hirace_py import cuda_api
from hirace_py.backends.base import KernelSignature
from hirace_py.cache import build_once, cache_root
from hirace_py.cuda_headers import CUDA_HEADERS
from hirace_py.errors import HiraceError

DEFAULT_ARCH = "sm_80"

_INT_TYPES = """\
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
typedef long long intmax_t;
typedef unsigned long long uintmax_t;
#define INT8_MAX 127
#define INT16_MAX 32767
#define INT32_MAX 2147483647
#define INT64_MAX 9223372036854775807LL
#define INT8_MIN (-INT8_MAX - 1)
#define INT16_MIN (-INT16_MAX - 1)
#define INT32_MIN (-INT32_MAX - 1)
#define INT64_MIN (-INT64_MAX - 1)
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX 18446744073709551615ULL
#define SIZE_MAX UINT64_MAX
namespace std {
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;
using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;
using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;
}
"""
_LIMITS = """\
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-32768)
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define INT_MIN (-INT_MAX - 1)
#define INT_MAX 2147483647
#define UINT_MAX 4294967295U
#define LONG_MAX 9223372036854775807L
#define LONG_MIN (-LONG_MAX - 1L)
#define ULONG_MAX 18446744073709551615UL
#define LLONG_MAX 9223372036854775807LL
#define LLONG_MIN (-LLONG_MAX - 1LL)
#define ULLONG_MAX 18446744073709551615ULL
"""
_FLOATS = """\
#define FLT_MAX 3.40282347e+38F
#define FLT_MIN 1.17549435e-38F
#define FLT_EPSILON 1.19209290e-07F
#define DBL_MAX 1.7976931348623157e+308
#define DBL_MIN 2.2250738585072014e-308
#define DBL_EPSILON 2.2204460492503131e-16
"""
# Host headers kernels include, and what NVRTC needs of each.
_BUILT_IN = ("cstdio", "stdio.h", "cstdlib", "stdlib.h", "cassert", "assert.h", "cmath",
             "math.h", "cstring", "string.h", "cstddef", "stddef.h")  # fmt: skip
HOST_HEADERS: dict[str, str] = {
    **{name: "" for name in _BUILT_IN},
    "cstdint": _INT_TYPES,
    "stdint.h": _INT_TYPES,
    "climits": _LIMITS,
    "limits.h": _LIMITS,
    "cfloat": _FLOATS,
    "float.h": _FLOATS,
}


class NvrtcError(HiraceError):
    """NVRTC is missing, or rejected the source (the message has its log)."""


@dataclass(frozen=True)
class Compiled:
    """A compiled module: the binary, what it is, and the kernels' symbol names."""

    binary: bytes
    kind: str
    """'cubin' for an sm_XX architecture, 'ptx' for compute_XX."""
    lowered: dict[str, str]
    """Kernel name as written -> its symbol in the binary."""


def stand_ins() -> Path:
    """The stand-in header directory (content-addressed, written once)."""
    headers = {name: "" for name in CUDA_HEADERS} | HOST_HEADERS
    texts = {name: f"#pragma once\n// hirace: NVRTC stand-in\n{body}" for name, body in
             sorted(headers.items())}  # fmt: skip
    digest = hashlib.sha256(repr(sorted(texts.items())).encode()).hexdigest()[:16]

    def write(scratch: Path) -> None:
        for name, text in texts.items():
            (scratch / name).parent.mkdir(parents=True, exist_ok=True)
            (scratch / name).write_text(text)

    return build_once(cache_root() / f"nvrtc-include-{digest}", write)


def options(include_dirs: list[str], arch: str) -> list[str]:
    """NVRTC's options for an instrumented source: the stand-ins first, the
    toolkit's libcu++ directory last (not its whole include directory, whose
    CUDA headers the stand-ins replace)."""
    libcu = [d for d in cuda_api.toolkit_include_dirs() if (Path(d) / "cuda" / "std").is_dir()]
    return ["-std=c++17", f"--gpu-architecture={arch}", f"-I{stand_ins()}",
            *(f"-I{d}" for d in [*include_dirs, *libcu])]  # fmt: skip


def _candidates() -> list[str]:
    found: list[str] = []
    try:
        import nvidia  # type: ignore[import-not-found]

        for root in list(nvidia.__path__):
            found += sorted(glob.glob(os.path.join(root, "*", "lib", "libnvrtc.so*")))
    except ImportError:
        pass
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home:
            found += sorted(glob.glob(os.path.join(home, "lib*", "libnvrtc.so*")))
    name = ctypes.util.find_library("nvrtc")
    if name:
        found.append(name)
    return [f for f in found if "builtins" not in os.path.basename(f)]


@functools.cache
def library() -> ctypes.CDLL:
    """libnvrtc, loaded once; NvrtcError if none can be found."""
    tried = _candidates()
    for path in tried:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        return lib
    raise NvrtcError(
        "NVRTC not found: install the nvidia-cuda-nvrtc wheel (pip install "
        "'nvidia-cuda-nvrtc>=13,<14') or a CUDA toolkit"
    )


def _check(lib: ctypes.CDLL, status: int, what: str) -> None:
    if status != 0:
        raise NvrtcError(f"NVRTC {what}: {lib.nvrtcGetErrorString(status).decode()}")


def kernel_names(kernels: dict[str, KernelSignature]) -> dict[str, str]:
    """Each launchable kernel's name -> the expression NVRTC finds its symbol by."""
    return {name: k.symbol for name, k in kernels.items()}


def compile_module(
    source: str,
    filename: str,
    include_dirs: list[str],
    arch: str = DEFAULT_ARCH,
    names: dict[str, str] | None = None,
) -> Compiled:
    """Compiles `source` (named `filename` in messages) for `arch` with NVRTC.

    `names` maps kernel names to the expressions (`ns::k`) whose symbols to
    look up; `lowered` maps the same names to the symbols.
    """
    lib = library()
    program = ctypes.c_void_p()
    _check(lib, lib.nvrtcCreateProgram(ctypes.byref(program), source.encode(),
                                       os.path.basename(filename).encode(), 0, None, None),
           "create")  # fmt: skip
    try:
        for expression in (names or {}).values():
            _check(lib, lib.nvrtcAddNameExpression(program, expression.encode()), "name")
        opts = [o.encode() for o in options(include_dirs, arch)]
        status = lib.nvrtcCompileProgram(program, len(opts), (ctypes.c_char_p * len(opts))(*opts))
        if status != 0:
            raise NvrtcError(f"{filename}: NVRTC compilation failed:\n{_log(lib, program)}")
        lowered = {}
        for name, expression in (names or {}).items():
            symbol = ctypes.c_char_p()
            status = lib.nvrtcGetLoweredName(program, expression.encode(), ctypes.byref(symbol))
            _check(lib, status, f"symbol of {name}")
            lowered[name] = (symbol.value or b"").decode()
        kind = "cubin" if arch.startswith("sm_") else "ptx"
        size = ctypes.c_size_t()
        getter = "CUBIN" if kind == "cubin" else "PTX"
        _check(lib, getattr(lib, f"nvrtcGet{getter}Size")(program, ctypes.byref(size)), "size")
        buffer = ctypes.create_string_buffer(size.value)
        _check(lib, getattr(lib, f"nvrtcGet{getter}")(program, buffer), "output")
        return Compiled(buffer.raw, kind, lowered)
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(program))


def _log(lib: ctypes.CDLL, program: ctypes.c_void_p) -> str:
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    buffer = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(program, buffer)
    return buffer.value.decode(errors="replace").strip()
