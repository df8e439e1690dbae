"""Building whole CUDA programs: instrument every source, then nvcc or g++.

`build(options)` is what `hirace build` does, and `cached_build` what
`hirace run` does:

1. every source is read and instrumented as a program unit (so that kernels
   defined in one file and launched from another are checked too), for the
   GPU or for the CPU backend, with every user header it reaches
   (hirace_py.instrument.files); `instrument=False` skips this (the original
   program, for comparing what it prints). A source that another source
   includes (`#include "x_kernel.cu"`) is built as part of that one only,
   as its author meant (compiling it twice would define its kernels twice);
2. what the compiler compiles is written next to the output, in
   `<output>.hirace/`: `<name>.hirace.cu` (the instrumented source, to read),
   `headers/` (the rewritten copies of the user headers, under their
   absolute paths), `include/` (hirace's runtime headers) and, for the CPU,
   `<name>.cpu.cpp` (the source as g++ sees it);
3. nvcc builds the GPU program (`-arch`, `-std=c++17`, the include
   directories); g++ builds the CPU one against the CPU backend's program
   runtime (hirace_py.backends.cpu_program).

Every failure is a `BuildError` (a HiraceError: the CLI prints one message
and exits 2) naming the file, and the line for compile errors.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import functools
import hashlib
import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import hirace_py
from hirace_py import nvcc_options, source_text
from hirace_py.backends import cpu_program
from hirace_py.cache import build_once, cache_root, write_if_changed
from hirace_py.config import Config
from hirace_py.errors import HiraceError
from hirace_py.includes import local_headers
from hirace_py.instrument import instrument, runtime
from hirace_py.instrument.api import GROUP_WIDTH_DEFINE, Instrumented, relocate
from hirace_py.instrument.files import HeaderCopy, tag_of
from hirace_py.instrument.model import Warning
from hirace_py.program_inputs import CUDA, LINK, C, c_compiler, kind_of, nvcc_link_flags

DEFAULT_ARCH = "sm_80"
WORK_SUFFIX = ".hirace"


class BuildError(HiraceError):
    """A program that cannot be built: a missing source, a compiler's error."""


@dataclass(frozen=True)
class BuildOptions:
    """What to build and how; the fields of `hirace build`'s command line."""

    sources: tuple[Path, ...]
    output: Path
    cpu: bool = False
    include_dirs: tuple[str, ...] = ()
    defines: dict[str, str | int | None] = field(default_factory=dict)
    nvcc_flags: tuple[str, ...] = ()
    link_flags: tuple[str, ...] = ()
    """-l, -L and -Wl,... flags, in the order given."""
    arch: str = DEFAULT_ARCH
    config: Config = field(default_factory=Config)
    instrument: bool = True
    engine: str = "fsm"
    """The race engine the program carries: "fsm", or "values" (the CPU backend
    only; docs/engines.md). Only the runtime headers differ (runtime.write_include_dir)."""
    optimize: str = "-O2"
    """Optimisation level of the program's own CUDA units on the CPU backend
    (`cpu_program.OPTIMIZE_LEVELS`); the runtime library stays at -O2."""


@dataclass(frozen=True)
class Built:
    """A built program and what went into it."""

    executable: Path
    work_dir: Path
    compiled: tuple[Path, ...]  # the sources built: instrumented copies, or the originals
    warnings: tuple[Warning, ...]  # constructs the instrumentation could not check
    included: tuple[tuple[Path, Path], ...] = ()
    """(source, the source that includes it): sources built only as part of another."""
    headers: tuple[HeaderCopy, ...] = ()
    """The user headers rewritten for the program."""


@dataclass(frozen=True)
class _Source:
    path: Path
    name: str  # unique stem for the generated files
    text: str  # what the compiler gets (instrumented or original)
    headers: tuple[HeaderCopy, ...] = ()  # its user headers' copies
    kind: str = CUDA  # hirace_py.program_inputs: CUDA, CXX or C


def work_dir(output: Path) -> Path:
    """Where the generated sources of `output` go: `<output>.hirace/`."""
    return output.with_name(output.name + WORK_SUFFIX)


def _read(path: Path) -> str:
    try:
        return source_text.read(path)
    except FileNotFoundError:
        raise BuildError(f"{path}: no such source file") from None
    except IsADirectoryError:
        raise BuildError(f"{path}: is a directory, not a source file") from None
    except OSError as exc:
        raise BuildError(f"{path}: cannot read: {exc.strerror}") from None
    except source_text.BinaryFile as exc:
        raise BuildError(str(exc)) from None


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise BuildError(f"{path}: cannot read: {exc.strerror}") from None


def _unique_names(paths: tuple[Path, ...]) -> list[str]:
    """File stems, numbered where two sources share one."""
    names: list[str] = []
    for path in paths:
        name, n = path.stem, 2
        while name in names:
            name, n = f"{path.stem}-{n}", n + 1
        names.append(name)
    return names


def included_sources(sources: tuple[Path, ...], include_dirs: tuple[str, ...]) -> dict[Path, Path]:
    """The sources another source includes, each with (the first) one that does."""
    sources = tuple(p for p in sources if kind_of(p, None, include_dirs) != LINK)
    real = {path.resolve(): path for path in sources}
    dirs = [Path(d).resolve() for d in include_dirs]
    out: dict[Path, Path] = {}
    for path in sources:
        for header, _ in local_headers(_read(path), [path.parent.resolve(), *dirs]):
            other = real.get(Path(header))
            if other is not None and other != path and other not in out:
                out[other] = path
    return out


def _prepare(options: BuildOptions, work: Path) -> tuple[list[_Source], list[Warning]]:
    """Reads and (unless told not to) instruments every CUDA source that is a unit
    of its own; C and C++ sources are read only (objects and libraries not at all)."""
    if not options.sources:
        raise BuildError("no source files given")
    included = included_sources(options.sources, options.include_dirs)
    sources, warnings = [], []
    defined: set[str] = set()
    copies: dict[Path, str] = {}
    for path, name in zip(options.sources, _unique_names(options.sources), strict=True):
        if path in included or kind_of(path, None, options.include_dirs) == LINK:
            continue
        text = _read(path)
        kind = kind_of(path, text, options.include_dirs)
        if kind != CUDA:
            sources.append(_Source(path, name, text, (), kind))
            continue
        headers: tuple[HeaderCopy, ...] = ()
        if options.instrument:
            result = _instrument_unit(options, path, text, work / "headers")
            if any(copies.get(h.path, h.text) != h.text for h in result.headers):
                # A header this unit sees differently (other macros before its
                # #include): this unit gets copies of its own.
                result = _instrument_unit(options, path, text, work / f"headers-{name}")
            copies.update((h.path, h.text) for h in result.headers)
            text, headers = result.source, result.headers
            warnings.extend(w for w in result.tables.warnings if w not in warnings)
            defined.update(k.name for k in result.tables.kernels)
        elif options.cpu:
            text, headers = relocate(text, str(path), list(options.include_dirs),
                                     options.defines, work / "headers")  # fmt: skip
        sources.append(_Source(path, name, text, headers))
    return sources, [w for w in warnings if not _defined_elsewhere(w, defined)]


def _instrument_unit(
    options: BuildOptions, path: Path, text: str, header_dir: Path
) -> Instrumented:
    target = "cpu" if options.cpu else "gpu"
    return instrument(text, str(path), options.config, list(options.include_dirs),
                      options.defines, target=target, program=True,
                      header_dir=header_dir)  # fmt: skip


def _defined_elsewhere(warning: Warning, kernels: set[str]) -> bool:
    """A launch warning about a kernel that another source of the program defines
    (and that is therefore instrumented too)."""
    return warning.code == "launch" and warning.subject in kernels


def build(options: BuildOptions) -> Built:
    """Instruments and builds the program; see the module's description."""
    _check_engine(options)
    work = work_dir(options.output)
    sources, warnings = _prepare(options, work)
    try:
        work.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BuildError(f"{work}: cannot create: {exc.strerror}") from None
    include = runtime.write_include_dir(work / "include", options.engine)
    headers = {h.path: h for s in sources for h in s.headers}
    if not options.cpu:
        for h in headers.values():
            write_if_changed(h.path, h.text)
    compiled = []
    for s in sources:
        if options.instrument and s.kind == CUDA:
            path = work / f"{s.name}.hirace.cu"
            source_text.write(path, s.text)
        else:
            path = s.path
        compiled.append(path)
    if options.cpu:
        _build_cpu(_hashing(options), sources, work)
    else:
        _build_gpu(_hashing(options), sources, compiled, include)
    included = included_sources(options.sources, options.include_dirs)
    return Built(options.output, work, tuple(compiled), tuple(warnings),
                 tuple(included.items()), tuple(headers.values()))  # fmt: skip


def _check_engine(options: BuildOptions) -> None:
    if options.engine not in ("fsm", "values"):
        raise BuildError(f"unknown engine {options.engine!r} for a program: fsm or values")
    if options.engine == "values" and not options.cpu:
        raise BuildError("--engine values runs on the CPU backend only: build with --cpu")
    if options.engine == "values" and not options.instrument:
        raise BuildError("--engine values checks races: drop --no-instrument")


@functools.cache
def xxhash_dispatch() -> bool:
    """Whether programs can link libxxhash's XXH3 dispatcher (-lxxhash), which picks
    the widest vector unit at run time: its header and a library exporting it."""
    headers = (Path("/usr/include/xxh_x86dispatch.h"), Path("/usr/local/include/xxh_x86dispatch.h"))
    if not any(h.is_file() for h in headers):
        return False
    library = ctypes.util.find_library("xxhash")
    try:
        return library is not None and hasattr(ctypes.CDLL(library), "XXH3_64bits_dispatch")
    except OSError:
        return False


def _hashing(options: BuildOptions) -> BuildOptions:
    """The options with the define and library of the XXH3 dispatcher, for an
    instrumented program where it is available, and, for one built for the
    CPU backend with no kernel instrumented (`hirace profile`),
    HIRACE_KERNELS_UNINSTRUMENTED: its runtime then compares copies instead of
    hashing them (templates/hirace_host.h.j2, docs/profile.md)."""
    if not options.instrument:
        return options
    if options.cpu and options.config.kernels == ():
        options = dataclasses.replace(
            options, defines={**options.defines, "HIRACE_KERNELS_UNINSTRUMENTED": 1})
    if not xxhash_dispatch():
        return options
    return dataclasses.replace(options, defines={**options.defines, "HIRACE_XXH_DISPATCH": 1},
                               link_flags=(*options.link_flags, "-lxxhash"))  # fmt: skip


def _defines(defines: dict[str, str | int | None]) -> list[str]:
    return [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in defines.items()]


def _build_gpu(
    options: BuildOptions, sources: list[_Source], compiled: list[Path], include: Path
) -> None:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise BuildError("nvcc not found on PATH: install the CUDA toolkit, or build for the "
                         "CPU backend with --cpu")  # fmt: skip
    # The instrumented copies live in the work directory: their own headers
    # are found through their original directories.
    source_dirs = list(dict.fromkeys(str(s.path.parent.resolve()) for s in sources))
    args = [nvcc, f"-arch={options.arch}", "-std=c++17", "-I", str(include),
            *[f"-I{d}" for d in options.include_dirs], *[f"-I{d}" for d in source_dirs],
            *_defines(options.defines), *options.nvcc_flags, *map(str, compiled),
            *map(str, _link_inputs(options)), "-o", str(options.output),
            *nvcc_link_flags(options.link_flags)]  # fmt: skip
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        names = ", ".join(str(s.path) for s in sources)
        raise BuildError(f"nvcc failed building {names}:\n{proc.stderr.strip() or proc.stdout}")


def _build_cpu(options: BuildOptions, sources: list[_Source], work: Path) -> None:
    prt = cpu_program.program_runtime()
    host_flags = nvcc_options.split(options.nvcc_flags)
    include = work / "include"
    dirs = [Path(d) for d in options.include_dirs]
    if options.instrument:
        dirs.insert(0, include)
    # Header copies are translated as sources are (kernels registered,
    # `extern __shared__` and launches rewritten), each once.
    for h in {h.path: h for s in sources for h in s.headers}.values():
        display = os.path.basename(h.original)
        translated = cpu_program.translate_source(h.text, display, options.defines,
                                                  tag_of(h.original))  # fmt: skip
        write_if_changed(h.path, translated)

    # The precompiled runtime header is the fsm engine's (the values engine's
    # programs force-include the program header alone).
    instrumented = (cpu_program.instrumented_header(prt, Path(runtime.include_dir()),
                                                    options.defines, options.optimize)
                    if options.instrument and options.engine == "fsm" else None)  # fmt: skip
    header = instrumented.header if instrumented else None
    # (the host runtime the units using `header` only declare)
    host = [instrumented.host_library] if instrumented else []

    def compile_one(s: _Source) -> Path:
        if s.kind != CUDA:
            return _compile_host(s, options, work)
        display = os.path.basename(s.path)
        translated = work / f"{s.name}.cpu.cpp"
        source_text.write(translated,
                          cpu_program.translate_source(s.text, display, options.defines))
        obj = work / f"{s.name}.o"
        # A unit with narrow lane groups defines HIRACE_GROUP_LOG2 before its
        # runtime include; the precompiled runtime has the default width, so
        # that unit parses the runtime header itself.
        own = None if GROUP_WIDTH_DEFINE in s.text else header
        flags = cpu_program.compile_flags(prt, dirs, options.defines, s.path.parent.resolve(),
                                          options.optimize, own)  # fmt: skip
        flags += host_flags.compile
        cpu_program.compile_object(translated, obj, flags, _read(s.path), display)
        return obj

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        objects = list(pool.map(compile_one, sources))
    cpu_program.link(prt, [*objects, *host, *_link_inputs(options)], options.output,
                     (*options.link_flags, *host_flags.link))  # fmt: skip


def _link_inputs(options: BuildOptions) -> list[Path]:
    return [p for p in options.sources if kind_of(p, None, options.include_dirs) == LINK]


def _compile_host(s: _Source, options: BuildOptions, work: Path) -> Path:
    """A C or C++ source compiled as such for a CPU program (C with the C compiler)."""
    obj = work / f"{s.name}.o"
    compiler = [c_compiler()] if s.kind == C else [cpu_program.program_runtime().runtime.cxx,
                                                   "-std=gnu++17"]  # fmt: skip
    args = [*compiler, *[f"-I{d}" for d in options.include_dirs], *_defines(options.defines),
            *nvcc_options.split(options.nvcc_flags).compile, "-c", str(s.path), "-o",
            str(obj)]  # fmt: skip
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise BuildError(f"{args[0]} failed compiling {s.path}:\n{proc.stderr.strip()}")
    return obj


# ---------------------------------------------------------------------------
# Cached builds, for `hirace run`.


@functools.cache
def _tool_digest() -> str:
    """Hash of hirace's own code and templates: a new hirace rebuilds programs."""
    digest = hashlib.sha256(hirace_py.__version__.encode())
    package = Path(hirace_py.__file__).parent
    from hirace_py.templating import template_dir

    for root in (package, template_dir()):
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".j2", ".h") and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@functools.cache
def _nvcc_identity() -> str:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return "no nvcc"
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=False)
    return nvcc + "\n" + out.stdout


def cache_key(options: BuildOptions) -> str:
    """Content hash of everything that goes into the program: sources, the
    headers they include from their own and the -I directories, options
    (the race engine and the program's file name too), hirace itself and the
    compiler."""
    digest = hashlib.sha256()
    dirs = [Path(d).resolve() for d in options.include_dirs]
    parts = [
        _tool_digest(),
        cpu_program.program_runtime().key if options.cpu else _nvcc_identity(),
        repr((options.cpu, options.arch, options.instrument, options.nvcc_flags, options.engine,
              options.output.name, options.optimize)),
        repr(sorted((k, str(v)) for k, v in options.defines.items())),
        "\n".join(map(str, dirs)),
        repr(options.config),
    ]
    for part in parts:
        digest.update(part.encode() + b"\0")
    digest.update(repr(options.link_flags).encode() + b"\0")
    for path in options.sources:
        if kind_of(path, None, options.include_dirs) == LINK:
            digest.update(f"{path.resolve()}\0".encode() + _read_bytes(path) + b"\0")
            continue
        text = _read(path)
        digest.update(f"{path.resolve()}\0{text}\0".encode())
        for header, data in local_headers(text, [path.parent.resolve(), *dirs]):
            digest.update(header.encode() + b"\0" + data + b"\0")
    return digest.hexdigest()[:24]


def cached_build(options: BuildOptions) -> Built:
    """`build`, kept in `<cache>/programs/<key>/` and reused while nothing
    that goes into the program changes. `options.output` names the program
    (its file name is kept); its directory is ignored."""
    key = cache_key(options)
    directory = cache_root() / "programs" / key
    executable = directory / (options.output.name or "program")

    def build_into(scratch: Path) -> None:
        scratch.mkdir()
        built = build(BuildOptions(**{**options.__dict__, "output": scratch / executable.name}))
        (scratch / "warnings.json").write_text(json.dumps([w.__dict__ for w in built.warnings]))
        (scratch / "built").write_text("")

    build_once(directory, build_into, "built")
    compiled = tuple(sorted(work_dir(executable).glob("*.hirace.cu")))
    warnings = tuple(Warning(**w) for w in json.loads((directory / "warnings.json").read_text()))
    return Built(executable, work_dir(executable), compiled, warnings)
