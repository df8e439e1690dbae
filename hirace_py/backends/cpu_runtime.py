"""The CPU backend's runtime: rendered headers, the engine library, the cache.

The runtime is built once per content hash into the cache directory
(`$HIRACE_CACHE`, else `~/.cache/hirace/cpu`) as `runtime-<hash>/`:
- `cuda_cpu.h`, `cuda_cpu_launch.h`: the headers kernels are compiled against,
  and a precompiled `cuda_cpu_launch.h.gch`, so a kernel compile parses none
  of the runtime's C++ again;
- `libhirace_cuda_cpu.so`: the fiber scheduler and the launcher, which every
  kernel module links against;
- `include/`: empty stand-ins for CUDA's headers (`cuda_runtime.h`, ...), so
  that sources including them compile; the runtime header declares it all;
  and hirace's own libcu++ atomics (`cuda/atomic`, `cuda/std/atomic`, from
  `cuda_cpu_libcu.h.j2`).
The hash covers the template texts, the values rendered into them, the
compiler's identity and the flags, so a change to any rebuilds.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hirace_py import __version__, cuda_api
from hirace_py.backends.cpu_errors import CompileError
from hirace_py.backends.cpu_source import Renderer
from hirace_py.cache import build_once, cache_root, write_if_changed
from hirace_py.cuda_headers import write_stand_ins
from hirace_py.errors import ToolFailure
from hirace_py.templating import environment, template_dir

WARP_SIZE = 32
# Dynamic shared memory a launch may ask for: CUDA's largest (227 KiB, sm_90).
SHARED_LIMIT = 227 * 1024
DEFAULT_STACK_KB = 256
# Consecutive atomics after which a thread yields to the rest of its block.
SPIN_LIMIT = 4096
CUDA_ARCH = 800

# Flags of every compile: the runtime library, its precompiled header and
# kernels must agree (a precompiled header is only used under the same flags).
# -fno-strict-aliasing: CUDA code type-puns freely (float4 views of float arrays).
# -fno-threadsafe-statics: __shared__ variables are static locals, and fibers
#   of one OS thread need no locking to initialize them.
# -fstack-clash-protection: large frames touch each page, so a thread that
#   overflows its stack hits the guard page.
# -fno-gnu-unique: static locals of inline functions (a __shared__ array in a
#   __forceinline__ function) would otherwise be unified across every loaded
#   module, so two kernel files with a same-named helper would share one array.
# -g1: line tables, to map a faulting instruction to its source line (DWARF 4:
#   binutils 2.40's addr2line misreads DWARF 5 file tables after #line).
# -fno-var-tracking: -g1 describes no variables, so tracking their locations
#   (on by default with -g at -Og and above) only costs: a fifth of a program
#   unit's compile at -Og. The code is the same (docs/performance.md).
OPTIMIZE = "-O2"
"""The optimisation level of BASE_FLAGS; a program's own units may use another
(`hirace_py.backends.cpu_program.compile_flags`)."""
BASE_FLAGS = (
    "-std=gnu++17",
    OPTIMIZE,
    "-g1",
    "-gdwarf-4",
    "-fno-var-tracking",
    "-fPIC",
    "-fno-strict-aliasing",
    "-fno-threadsafe-statics",
    "-fstack-clash-protection",
    "-fno-gnu-unique",
)

LIBRARY_NAME = "libhirace_cuda_cpu.so"


def _reduces() -> list[tuple[str, str]]:
    """The warp reductions __reduce_<op>_sync and the engine's operation for each."""
    ops = sorted(
        {m[1] for n in cuda_api.names("warp") if (m := re.match(r"__reduce_(\w+)_sync$", n))}
    )
    return [(op, f"kReduce{op.capitalize()}") for op in ops]


def _version_macros() -> dict[str, str]:
    return {name: v["cpu"] for name, v in cuda_api.version_macros().items()}


def template_context() -> dict[str, object]:
    """Values rendered into the runtime templates."""
    return {
        "version": __version__,
        "warp_size": WARP_SIZE,
        "shared_limit": SHARED_LIMIT,
        "spin_limit": SPIN_LIMIT,
        "default_stack_kb": DEFAULT_STACK_KB,
        "cuda_arch": CUDA_ARCH,
        "version_macros": _version_macros(),
        "vector_types": cuda_api.vector_types(),
        "reduces": _reduces(),
        "cpu_functions": cuda_api.cpu_functions(),
        "cpu_macros": cuda_api.cpu_macros(),
        "device_types": cuda_api.device_types(),
        "system_includes": cuda_api.catalogue().system_includes,
        "libcu": cuda_api.catalogue().libcu,
    }


def predefined_macros() -> dict[str, str | None]:
    """Macros the runtime header defines before any kernel source (for #if)."""
    return {
        "__CUDACC__": "1",
        "__CUDA_ARCH__": str(CUDA_ARCH),
        **_version_macros(),
        "HIRACE_CPU": "1",
        "__cplusplus": "201703",
        "__GNUC__": "1",
        "__x86_64__": "1" if os.uname().machine == "x86_64" else None,
        "__linux__": "1",
    }


def render(name: str, **extra: object) -> str:
    """Renders runtime template `name` (e.g. "cuda_cpu.h.j2"), with `extra` values
    besides the runtime's own."""
    return environment(trim=True).get_template(name).render({**template_context(), **extra})


@functools.cache
def libcu_headers() -> dict[str, str]:
    """hirace's own libcu++ atomics headers, by the names code includes them by:
    the implementation under the catalogue's first name, which the others include."""
    main, *others = cuda_api.catalogue().libcu.headers
    out = {main: render("cuda_cpu_libcu.h.j2")}
    for name in others:
        out[name] = f"#pragma once\n// hirace CPU backend\n#include <{main}>\n"
    return out


def write_libcu_headers(include: Path) -> None:
    """Write `libcu_headers()` under the include directory `include`."""
    for name, text in libcu_headers().items():
        path = include / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def macros(name: str) -> Any:
    """The macros of runtime template `name`, as callables returning text."""
    return environment(trim=True).get_template(name).module


class ModuleRenderer(Renderer):
    """Insertions into kernel sources, from cuda_cpu_module.cpp.j2's macros."""

    def __init__(self) -> None:
        self._macros = environment(trim=True).get_template("cuda_cpu_module.cpp.j2").module

    def prologue(self, filename: str) -> str:
        return str(self._macros.prologue(filename))

    def kernel_stub(self, index: int, name: str, address: str, line: int, filename: str) -> str:
        return str(self._macros.kernel_stub(index, name, address, line, filename))

    def global_accessor(self, index: int, name: str, line: int, filename: str) -> str:
        return str(self._macros.global_accessor(index, name, line, filename))

    def extern_shared(self, type_text: str, name: str) -> str:
        return str(self._macros.extern_shared(type_text, name))


def module_template_text() -> str:
    """Text of the insertion template (part of every kernel's cache key)."""
    source = environment(trim=True).loader
    assert source is not None
    text, _, _ = source.get_source(environment(trim=True), "cuda_cpu_module.cpp.j2")
    return text


def compiler() -> str:
    """The C++ compiler: `$HIRACE_CXX`, else g++."""
    return os.environ.get("HIRACE_CXX", "g++")


@functools.cache
def compiler_identity(cxx: str) -> str:
    """The compiler's version banner and target (part of every cache key)."""
    if shutil.which(cxx) is None:
        raise ToolFailure(f"C++ compiler `{cxx}` not found (set HIRACE_CXX or install g++)")
    out = subprocess.run(
        [cxx, "--version", "-dumpmachine"], capture_output=True, text=True, check=False
    )
    return f"{shutil.which(cxx)}\n{out.stdout}"


def run_compiler(args: list[str], what: str) -> None:
    """Runs the compiler; a failure is a CompileError with its output."""
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise CompileError(f"{what} failed:\n{proc.stderr.strip()}")


@dataclass(frozen=True)
class Runtime:
    """A built runtime: where its headers and library are, and its hash."""

    directory: Path
    key: str
    cxx: str
    flags: tuple[str, ...]  # the compile flags; kernels must use the same

    @property
    def library(self) -> Path:
        return self.directory / LIBRARY_NAME

    @property
    def launch_header(self) -> Path:
        return self.directory / "cuda_cpu_launch.h"

    @property
    def include_dir(self) -> Path:
        return self.directory / "include"


def _fiber_flags() -> tuple[str, ...]:
    # HIRACE_FIBERS=ucontext selects the portable context switch (for testing it).
    return ("-DHR_UCONTEXT",) if os.environ.get("HIRACE_FIBERS") == "ucontext" else ()


def runtime() -> Runtime:
    """The runtime for the current compiler and settings, built if needed."""
    cxx = compiler()
    return _runtime(cxx, compiler_identity(cxx), str(cache_root()), _fiber_flags())


# Toolkit headers the CPU backend has its own version of (plain files of
# templates/), by the name user code includes.
COOPERATIVE_GROUPS = "cuda_cpu_cooperative_groups.h"


def cpu_headers() -> dict[str, str]:
    """The CPU backend's own toolkit headers, by include name, with their text:
    <cooperative_groups.h> and the parts of it sources include by name, and,
    where the toolkit's headers are found, the number headers (<cuda_fp16.h>,
    <cuda_bf16.h>): the toolkit's, then hirace's device-only functions."""
    text = (template_dir() / COOPERATIVE_GROUPS).read_text()
    part = "#pragma once\n// hirace CPU backend: part of <cooperative_groups.h>.\n" \
        "#include <cooperative_groups.h>\n"
    headers = {
        "cooperative_groups.h": text,
        "cooperative_groups/reduce.h": part,
        "cooperative_groups/scan.h": part,
    }
    return headers | number_headers()


def number_headers() -> dict[str, str]:
    """The stand-ins of the number headers where the toolkit's are found: each
    includes every toolkit number header by its path, as a host compiler sees
    it (the toolkit's own includes resolve beside it, and through
    `toolkit_flags()`), then hirace's implementation of their device-only
    functions (cuda_api.NumberHeader)."""
    include = cuda_api.toolkit_include()
    numbers = cuda_api.catalogue().number_headers
    if include is None:
        return {}
    # The toolkit's headers see a host compiler (cuda_cpu.h defines nvcc's
    # device macros, which would select their PTX).
    device = ("__CUDACC__", "__CUDA_ARCH__")
    real = "".join(f'#pragma push_macro("{m}")\n#undef {m}\n' for m in device)
    real += "".join(f'#include "{include / h.name}"\n' for h in numbers)
    real += "".join(f'#pragma pop_macro("{m}")\n' for m in device)
    own = "".join(
        f"// {h}\n{(template_dir() / h).read_text()}" for h in sorted({h.cpu for h in numbers})
    )
    text = f"#pragma once\n// hirace CPU backend: CUDA's own header, then its device side.\n" \
        f"{real}{own}"  # fmt: skip
    return {h.name: text for h in numbers}


def toolkit_flags() -> tuple[str, ...]:
    """Include flags for what the toolkit's number headers include by angle
    brackets (<nv/target>): its directories, searched after every other, so
    that hirace's stand-ins keep hiding the rest of the toolkit."""
    return tuple(f"-idirafter{d}" for d in cuda_api.toolkit_include_dirs())


def write_headers(include: Path, comment: str) -> None:
    """Writes the stand-ins for CUDA's headers and the backend's own headers."""
    write_stand_ins(include, comment)
    for name, text in cpu_headers().items():
        write_if_changed(include / name, text)


@functools.cache
def _runtime(cxx: str, identity: str, root: str, fiber_flags: tuple[str, ...]) -> Runtime:
    files = {
        "cuda_cpu.h": render("cuda_cpu.h.j2"),
        "cuda_cpu_launch.h": render("cuda_cpu_launch.h.j2"),
        "cuda_cpu_engine.cpp": render("cuda_cpu_engine.cpp.j2"),
        "cuda_cpu_launch.cpp": render("cuda_cpu_launch.cpp.j2"),
    }
    digest = hashlib.sha256()
    flags = BASE_FLAGS + fiber_flags + toolkit_flags()
    for part in (identity, " ".join(flags), *files.values(),
                 *libcu_headers().values(), *cpu_headers().values()):  # fmt: skip
        digest.update(part.encode())
        digest.update(b"\0")
    key = digest.hexdigest()[:20]
    rt = Runtime(Path(root) / f"runtime-{key}", key, cxx, flags)
    build_once(rt.directory, lambda scratch: _build_runtime(rt, files, scratch), LIBRARY_NAME)
    return rt


def _build_runtime(rt: Runtime, files: dict[str, str], scratch: Path) -> None:
    """Builds the runtime in the new directory `scratch` (see `build_once`)."""
    scratch.mkdir()
    for name, text in files.items():
        (scratch / name).write_text(text)
    include = scratch / "include"
    include.mkdir()
    write_headers(include, "hirace CPU backend: declared by the force-included cuda_cpu.h.")
    write_libcu_headers(include)
    run_compiler(
        [
            rt.cxx,
            *rt.flags,
            "-shared",
            "-o",
            str(scratch / LIBRARY_NAME),
            str(scratch / "cuda_cpu_engine.cpp"),
            str(scratch / "cuda_cpu_launch.cpp"),
        ],
        "building the CPU backend runtime",
    )
    run_compiler(
        [
            rt.cxx,
            *rt.flags,
            "-x",
            "c++-header",
            str(scratch / "cuda_cpu_launch.h"),
            "-o",
            str(scratch / "cuda_cpu_launch.h.gch"),
        ],
        "precompiling the CPU backend header",
    )
