"""Whole CUDA programs on the CPU backend: their runtime, translation and compilation.

A program built for the CPU is compiled by g++ with two headers
force-included: the device API (`cuda_cpu.h`, as for kernels) and the host
runtime API (`cuda_cpu_program.h`, rendered from
templates/cuda_cpu_program.h.j2: cudaMalloc, cudaMemcpy, streams, events,
errors, and `hr::launch`). The fiber engine is linked in as a static archive,
so a built program does not depend on the cache to run.

The program runtime is built once per content hash next to the backend's
runtime, as `<cache>/program-<hash>/`: the rendered header, its precompiled
form (`.gch`, so each source compiles without re-parsing the runtime), the
engine archive, and `include/` with stand-ins for CUDA's headers.

Each source goes through the same translation the backend applies to kernel
sources (`cpu_source.translate`: `extern __shared__` and `static __shared__`),
with insertions from templates/cuda_cpu_program_unit.cpp.j2 (each kernel
registers its name), after `rewrite_launches` has turned every
`k<<<g, b, s, st>>>(args)` into `::hr::launch(k, g, b, s, st)(args)`.
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

from hirace_py import cuda_api
from hirace_py.backends.cpu_build import compile_error, define_flags_of
from hirace_py.backends.cpu_errors import CompileError
from hirace_py.backends.cpu_runtime import (
    CUDA_ARCH,
    OPTIMIZE,
    SHARED_LIMIT,
    ModuleRenderer,
    Runtime,
    macros,
    predefined_macros,
    render,
    run_compiler,
    runtime,
    write_headers,
    write_libcu_headers,
)
from hirace_py.backends.cpu_source import Renderer, Token, quote_filename, tokenize, translate
from hirace_py.cache import build_once
from hirace_py.cuda_headers import CUDA_HEADERS
from hirace_py.instrument.dialect import normalized
from hirace_py.time_limits import WALL_BACKSTOP

PROGRAM_HEADER = "cuda_cpu_program.h"
PROGRAM_SOURCE = "cuda_cpu_program.cpp"
ARCHIVE = "libhirace_cuda_cpu_program.a"
DEADLINE_EXIT = 124
"""Exit status of a program ended by its HIRACE_DEADLINE (CPU seconds; at a
kernel launch, through exit(), so its race report is written)."""
UNIT_TEMPLATE = "cuda_cpu_program_unit.cpp.j2"

# Headers programs include besides those kernel sources do; the program
# header declares what they would.

# CUDA's error codes (name, value, cudaGetErrorString's text) and device
# attributes (name, value, the CPU device's answer), from the catalogue.
ERRORS = cuda_api.catalogue().runtime_errors
ATTRIBUTES = cuda_api.catalogue().device_attributes


def render_program(name: str) -> str:
    """The text of the program header or its implementation (`name` without .j2)."""
    values = {
        "arch_major": CUDA_ARCH // 100,
        "arch_minor": CUDA_ARCH % 100 // 10,
        "shared_limit": SHARED_LIMIT,
    }
    attributes = [
        (attr, value, answer.format(**values)) for attr, value, answer in ATTRIBUTES if answer
    ]
    return render(
        name + ".j2", errors=ERRORS, attributes=attributes, runtime_types=cuda_api.runtime_types(),
        deadline_exit=DEADLINE_EXIT, wall_backstop=WALL_BACKSTOP,
    )


@dataclass(frozen=True)
class ProgramRuntime:
    """A built program runtime: its header, engine archive and include directory."""

    directory: Path
    runtime: Runtime

    @property
    def header(self) -> Path:
        return self.directory / PROGRAM_HEADER

    @property
    def archive(self) -> Path:
        return self.directory / ARCHIVE

    @property
    def include_dir(self) -> Path:
        return self.directory / "include"

    @property
    def key(self) -> str:
        return self.directory.name


def program_runtime() -> ProgramRuntime:
    """The program runtime for the current compiler and settings, built if needed."""
    return _program_runtime(runtime())


@functools.cache
def _program_runtime(rt: Runtime) -> ProgramRuntime:
    files = {name: render_program(name) for name in (PROGRAM_HEADER, PROGRAM_SOURCE)}
    digest = hashlib.sha256()
    for part in (rt.key, *files.values(), *CUDA_HEADERS):
        digest.update(part.encode() + b"\0")
    prt = ProgramRuntime(rt.directory.parent / f"program-{digest.hexdigest()[:20]}", rt)
    build_once(prt.directory, lambda scratch: _build_program_runtime(prt, files, scratch), ARCHIVE)
    return prt


def _build_program_runtime(prt: ProgramRuntime, files: dict[str, str], scratch: Path) -> None:
    """Builds the program runtime in the new directory `scratch` (see `build_once`)."""
    rt = prt.runtime
    scratch.mkdir()
    for name, text in files.items():
        (scratch / name).write_text(text)
    include = scratch / "include"
    include.mkdir()
    write_headers(
        include, f"hirace CPU backend: declared by the force-included {PROGRAM_HEADER}."
    )
    write_libcu_headers(include)
    objects = []
    for source in (rt.directory / "cuda_cpu_engine.cpp", rt.directory / "cuda_cpu_launch.cpp",
                   scratch / PROGRAM_SOURCE):  # fmt: skip
        obj = scratch / source.with_suffix(".o").name
        run_compiler(
            [rt.cxx, *rt.flags, "-I", str(rt.directory), "-I", str(scratch), "-c",
             str(source), "-o", str(obj)],
            "building the CPU backend's program runtime",
        )  # fmt: skip
        objects.append(str(obj))
    run_compiler(["ar", "rcs", str(scratch / ARCHIVE), *objects], "archiving the engine")
    for obj in objects:
        os.unlink(obj)
    run_compiler(
        [rt.cxx, *rt.flags, "-I", str(rt.directory), "-x", "c++-header",
         str(scratch / PROGRAM_HEADER), "-o", str(scratch / (PROGRAM_HEADER + ".gch"))],
        "precompiling the program header",
    )  # fmt: skip


# ---------------------------------------------------------------------------
# Source translation.


class ProgramRenderer(Renderer):
    """Insertions for program sources (cuda_cpu_program_unit.cpp.j2). `tag` keeps
    the names of a header's insertions apart from those of the source that
    includes it. (Lines are the user's: `translate` follows #line directives.)
    """

    def __init__(self, tag: str = "") -> None:
        self._macros = macros(UNIT_TEMPLATE)
        self._shared = ModuleRenderer()
        self.tag = tag

    def prologue(self, filename: str) -> str:
        return str(self._macros.prologue(filename))

    def kernel_stub(self, index: int, name: str, address: str, line: int, filename: str) -> str:
        return str(self._macros.kernel_stub(f"{self.tag}{index}", name, address, line, filename))

    def global_accessor(self, index: int, name: str, line: int, filename: str) -> str:
        return str(self._macros.global_accessor(index, name, line, filename))

    def extern_shared(self, type_text: str, name: str) -> str:
        return self._shared.extern_shared(type_text, name)


def _code(tokens: list[Token]) -> list[int]:
    """Indices of the tokens that are code (not whitespace or comments)."""
    return [i for i, t in enumerate(tokens) if t.kind not in ("space", "newline", "comment")]


# Words that may stand before a launch expression, not as a qualifier of its callee.
_KEYWORDS = frozenset({"return", "case", "else", "do", "throw", "co_return", "co_await"})


def _back_match(tokens: list[Token], code: list[int], j: int, open_: str) -> int | None:
    """Index into `code` of the token opening the group closed at code[j]
    (`(` for `)`, `[` for `]`; `<` for `>` or `>>`, which closes two)."""
    depth = 0
    close = {"(": ")", "[": "]"}.get(open_)
    while j >= 0:
        text = tokens[code[j]].text
        if close is not None:
            depth += (text == close) - (text == open_)
        else:
            depth += {">": 1, ">>": 2, "<": -1}.get(text, 0)
        if depth <= 0:
            return j if depth == 0 else None
        j -= 1
    return None


def _callee_start(tokens: list[Token], code: list[int], j: int) -> int | None:
    """Index into `code` of the first token of the callee ending at code[j]:
    `k`, `ns::k`, `::k`, `k<float, 4>`, `(k)`, `table[i]`; None if it is none
    of these."""
    while j >= 0:
        text = tokens[code[j]].text
        if text == ")":
            return _back_match(tokens, code, j, "(")
        while text == "]":  # an element of an array of kernel pointers
            opening = _back_match(tokens, code, j, "[")
            if opening is None or opening == 0:
                return None
            j = opening - 1
            text = tokens[code[j]].text
        if text in (">", ">>"):
            opening = _back_match(tokens, code, j, "<")
            if opening is None or opening == 0:
                return None
            j = opening - 1
        if tokens[code[j]].kind != "ident":
            return None
        if j >= 1 and tokens[code[j - 1]].text == "::":
            before = tokens[code[j - 2]] if j >= 2 else None
            if before is not None and (
                (before.kind == "ident" and before.text not in _KEYWORDS)
                or before.text in (">", ">>")
            ):
                j -= 2
                continue
            return j - 1
        return j
    return None


def rewrite_launches(source: str) -> str:
    """`k<<<g, b, s, st>>>(args)` becomes `::hr::launch(k, g, b, s, st)(args)`.

    A tokenizer pass, so launches in macros are rewritten too (the CPU runtime
    runs them; hirace's instrumentation cannot see them). Text stays on its
    lines. Launches whose callee it cannot delimit are left for g++ to reject.
    """
    tokens = tokenize(source)
    code = _code(tokens)
    edits: list[tuple[int, int, str]] = []
    k = 0
    while k + 1 < len(code):
        first, second = tokens[code[k]], tokens[code[k + 1]]
        if not (first.text == "<<" and second.text == "<" and first.end == second.start):
            k += 1
            continue
        start = _callee_start(tokens, code, k - 1) if k else None
        close = _launch_close(tokens, code, k + 2)
        if start is None or close is None:
            k += 2
            continue
        edits.append((tokens[code[start]].start, tokens[code[start]].start, "::hr::launch("))
        edits.append((first.start, second.end, ", "))
        edits.append((tokens[code[close]].start, tokens[code[close + 1]].end, ")"))
        k = close + 2
    out, position = [], 0
    for start_at, end_at, text in sorted(edits):
        out.append(source[position:start_at])
        out.append(text)
        position = end_at
    out.append(source[position:])
    return "".join(out)


def _launch_close(tokens: list[Token], code: list[int], k: int) -> int | None:
    """Index into `code` of the `>>` of the `>>>` closing a launch configuration."""
    depth = 0
    for j in range(k, len(code) - 1):
        text = tokens[code[j]].text
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
        elif (depth == 0 and text == ">>" and tokens[code[j + 1]].text == ">"
              and tokens[code[j]].end == tokens[code[j + 1]].start):  # fmt: skip
            return j
        if depth < 0 or text == ";":
            return None
    return None


def translate_source(
    text: str,
    display: str,
    defines: dict[str, str | int | None],
    tag: str = "",
) -> str:
    """`text` (a program source or header, instrumented or not) ready for g++:
    launches rewritten, then the backend's translation with program insertions
    (named apart by `tag` in a header)."""
    macros_known = predefined_macros()
    for flag in define_flags_of(defines):
        name, _, value = flag[2:].partition("=")
        macros_known[name] = value or "1"
    unit = translate(rewrite_launches(normalized(text)), quote_filename(display), macros_known,
                     ProgramRenderer(f"{tag}_" if tag else ""))  # fmt: skip
    return unit.text


# ---------------------------------------------------------------------------
# Compiling and linking.


OPTIMIZE_LEVELS = ("-O2", "-O1", "-Og", "-O0")
"""Optimisation levels a program's own units may be compiled at: -O2, the
default, makes the fastest kernels; -Og compiles about twice as fast
(docs/performance.md, "Indigo suites"), for programs built to run briefly."""
INSTRUMENTED_HEADER = "hirace_program_instrumented.h"
HOST_DEFINITIONS = "libhirace_host.a"


def with_optimization(flags: tuple[str, ...] | list[str], optimize: str) -> list[str]:
    """`flags` (the runtime's) with the optimisation level `optimize`."""
    if optimize not in OPTIMIZE_LEVELS:
        raise ValueError(f"optimisation level {optimize!r}: use one of {OPTIMIZE_LEVELS}")
    return [optimize if f == OPTIMIZE else f for f in flags]


@dataclass(frozen=True)
class InstrumentedHeader:
    """What every instrumented unit of a program is built with on the CPU
    backend: the precompiled `header` it force-includes, and `host_library`,
    the host runtime's out-of-line functions the units only declare, which
    the program links."""

    header: Path
    host_library: Path


def instrumented_header(
    prt: ProgramRuntime, runtime_include: Path, defines: dict[str, str | int | None],
    optimize: str = OPTIMIZE,
) -> InstrumentedHeader:  # fmt: skip
    """A header that includes, precompiled, what every instrumented unit of a
    program starts with: the program header and hirace's runtime header
    (`runtime_include`/hirace_runtime.cuh, with HIRACE_PROGRAM), and the host
    runtime's out-of-line functions, compiled once (HIRACE_HOST_OUTLINED and
    HIRACE_HOST_DEFINITIONS in templates/hirace_host.h.j2: a unit no longer
    compiles the host runtime, most of the code g++ made for it). Built once
    per cache, runtime, defines and optimisation level (`build_once`); a unit
    force-including it parses neither header again (the runtime header's
    include guard makes the unit's own #include of it empty). g++ checks that
    the precompiled state fits the unit's command line and reads the header
    text instead where it does not, so using it never changes a build. The
    library is an archive: a program whose units all define the host runtime
    inline themselves (a unit that cannot use the header) takes nothing from
    it."""
    includes = (f'#include "{prt.header}"\n#define HIRACE_PROGRAM 1\n'
                f'#include "{runtime_include / "hirace_runtime.cuh"}"\n')  # fmt: skip
    text = "#define HIRACE_HOST_OUTLINED 1\n" + includes
    flags = [*with_optimization(prt.runtime.flags, optimize), "-I", str(prt.runtime.directory),
             "-I", str(prt.include_dir), *define_flags_of(defines)]  # fmt: skip
    digest = hashlib.sha256(f"{prt.directory}\0{text}\0{flags}".encode())
    for header in sorted(runtime_include.glob("*.h*")):
        digest.update(header.read_bytes())
    directory = prt.directory.parent / f"pch-{digest.hexdigest()[:20]}"

    def build_into(scratch: Path) -> None:
        scratch.mkdir()
        (scratch / INSTRUMENTED_HEADER).write_text(text)
        header = scratch / INSTRUMENTED_HEADER
        run_compiler([prt.runtime.cxx, *flags, "-x", "c++-header", str(header), "-o",
                      f"{header}.gch"], "precompiling the instrumented program header")  # fmt: skip
        definitions = scratch / "hirace_host_definitions.cpp"
        definitions.write_text("#define HIRACE_HOST_DEFINITIONS 1\n" + includes)
        obj = definitions.with_suffix(".o")
        run_compiler([prt.runtime.cxx, *flags, "-c", str(definitions), "-o", str(obj)],
                     "compiling the host runtime")  # fmt: skip
        run_compiler(["ar", "rcs", str(scratch / HOST_DEFINITIONS), str(obj)],
                     "archiving the host runtime")  # fmt: skip
        obj.unlink()

    build_once(directory, build_into, INSTRUMENTED_HEADER + ".gch")
    return InstrumentedHeader(directory / INSTRUMENTED_HEADER, directory / HOST_DEFINITIONS)


def compile_flags(
    prt: ProgramRuntime,
    include_dirs: list[Path],
    defines: dict[str, str | int | None],
    source_dir: Path | None,
    optimize: str = OPTIMIZE,
    header: Path | None = None,
) -> list[str]:
    """g++ flags for one program source (before the source file itself), at
    the optimisation level `optimize`, force-including `header` (by default
    the program header; `instrumented_header` for an instrumented unit)."""
    rt = prt.runtime
    return [
        rt.cxx,
        *with_optimization(rt.flags, optimize),
        "-include",
        str(header or prt.header),
        "-I",
        str(rt.directory),
        "-I",
        str(prt.include_dir),
        *(["-iquote", str(source_dir)] if source_dir else []),
        *[f"-I{d}" for d in include_dirs],
        *define_flags_of(defines),
    ]


def compile_object(
    translated: Path, obj: Path, flags: list[str], source: str, display: str
) -> None:
    """Compiles one translated source; a failure is a CompileError naming the
    user's file and line (the translation keeps them through #line)."""
    args = [*flags, "-x", "c++", str(translated), "-c", "-o", str(obj)]
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise compile_error(proc.stderr, source, display)


@functools.cache
def linker_flags() -> tuple[str, ...]:
    """`-fuse-ld=gold` where binutils' gold linker is installed, else nothing
    (the default, ld.bfd). gold links a program in half the CPU time of
    ld.bfd (0.038 against 0.078 s for an Indigo3 code: docs/performance.md,
    "Indigo suites"); the program is the same (its tests run either way)."""
    return ("-fuse-ld=gold",) if shutil.which("ld.gold") else ()


def link(
    prt: ProgramRuntime, objects: list[Path], output: Path, flags: tuple[str, ...] = ()
) -> None:
    """Links the program (objects, then the user's linker `flags`) with the engine
    archive. -rdynamic lets the runtime name kernels it was not told about
    (template instances) by symbol."""
    rt = prt.runtime
    args = [rt.cxx, *linker_flags(), *[str(o) for o in objects], *flags, "-o", str(output),
            "-rdynamic", "-pthread", str(prt.archive), "-ldl"]  # fmt: skip
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        hint = ("\n(an OpenMP program: build it as nvcc would, with "
                "--nvcc-flags='-Xcompiler -fopenmp')"
                if re.search(r"undefined reference to [`']omp_", proc.stderr)
                else "")  # fmt: skip (ld.bfd quotes `so', gold 'so')
        raise CompileError(f"linking {output} failed:\n{proc.stderr.strip()}{hint}")
