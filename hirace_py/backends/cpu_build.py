"""Compiling one kernel source into a shared library, cached by content hash.

The cache key covers everything that affects the library: the source and its
name, the defines, the contents of the local headers it includes, the runtime
(its own hash covers templates, compiler and flags), the insertion template
and the extra flags. Libraries live in `<cache>/kernels/<key>.so`, next to the
translated source g++ compiled (`<key>.cpp`, for reading when debugging).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from hirace_py.backends.cpu_errors import CompileError
from hirace_py.backends.cpu_runtime import (
    LIBRARY_NAME,
    ModuleRenderer,
    Runtime,
    module_template_text,
    predefined_macros,
    runtime,
)
from hirace_py.backends.cpu_source import TranslationUnit, translate
from hirace_py.cache import build_once
from hirace_py.includes import local_headers

_MACRO_NAME = re.compile(r"[A-Za-z_]\w*\Z")
# g++'s "file:line:col: error: ..." (also "fatal error").
_DIAGNOSTIC_RE = re.compile(r"^(.+?):(\d+):(?:\d+:)? (?:fatal )?error: ", re.M)

DEFAULT_FILENAME = "<source>"


@dataclass(frozen=True)
class BuildResult:
    """A compiled module: its library, translation, and display name."""

    library: Path
    unit: TranslationUnit
    filename: str
    source: str
    runtime: Runtime


def define_flags_of(defines: dict[str, str | int | None] | None) -> list[str]:
    flags = []
    for name, value in (defines or {}).items():
        if not isinstance(name, str) or not _MACRO_NAME.match(name):
            raise ValueError(f"define name {name!r} is not a valid macro name")
        if value is None:
            flags.append(f"-D{name}")
        elif isinstance(value, bool) or not isinstance(value, str | int):
            raise TypeError(f"define {name}: value must be str, int or None, not {value!r}")
        else:
            flags.append(f"-D{name}={value}")
    return flags


def _source_line(filename: str, line: int, source: str, display: str) -> str | None:
    if filename == display:
        lines = source.splitlines()
    else:
        try:
            lines = Path(filename).read_text(errors="replace").splitlines()
        except OSError:
            return None
    return lines[line - 1] if 0 < line <= len(lines) else None


def compile_error(stderr: str, source: str, display: str) -> CompileError:
    match = _DIAGNOSTIC_RE.search(stderr)
    message = stderr.strip()
    if match is None:
        return CompileError(f"compiling {display} failed:\n{message}")
    file, line = match.group(1), int(match.group(2))
    text = _source_line(file, line, source, display)
    # g++ quotes the line itself when it can read the file; add it otherwise.
    if text is not None and text.strip() and text.strip() not in message:
        message += f"\n{file}:{line}: {text.strip()}"
    return CompileError(f"compiling {display} failed:\n{message}", file, line)


def build(
    source: str,
    defines: dict[str, str | int | None] | None = None,
    include_dirs: list[str | os.PathLike[str]] | None = None,
    filename: str | None = None,
    extra_flags: list[str] | None = None,
) -> BuildResult:
    """Compiles `source` (or finds it in the cache); see `hirace_py.backends.cpu.compile`."""
    if not isinstance(source, str):
        raise TypeError(f"source must be a str of CUDA code, not {type(source).__name__}")
    rt = runtime()
    display = str(filename) if filename is not None else DEFAULT_FILENAME
    define_flags = define_flags_of(defines)
    dirs = [Path(d).resolve() for d in include_dirs or []]
    own_dir = Path(display).resolve().parent if filename is not None else None
    flags = list(extra_flags or [])
    macros = predefined_macros()
    for flag in define_flags:
        name, _, value = flag[2:].partition("=")
        macros[name] = value or "1"
    unit = translate(source, display, macros, ModuleRenderer())

    digest = hashlib.sha256()
    parts = [
        rt.key,
        module_template_text(),
        display,
        unit.text,  # the translation, not the source: a new translator rebuilds
        "\n".join(define_flags),
        "\n".join(map(str, dirs)),
        "\n".join(flags),
    ]
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    for path, data in local_headers(source, [d for d in [own_dir, *dirs] if d]):
        digest.update(path.encode() + b"\0" + data + b"\0")
    key = digest.hexdigest()[:24]
    directory = rt.directory.parent / "kernels"
    library = directory / f"{key}.so"
    build_once(
        library,
        lambda scratch: _compile(
            rt, unit, directory, key, define_flags, own_dir, dirs, flags, source, display, scratch
        ),
    )
    return BuildResult(library, unit, display, source, rt)


def _compile(
    rt: Runtime,
    unit: TranslationUnit,
    directory: Path,
    key: str,
    define_flags: list[str],
    own_dir: Path | None,
    dirs: list[Path],
    flags: list[str],
    source: str,
    display: str,
    scratch: Path,
) -> None:
    """Compiles the kernel library into `scratch` (see `build_once`); the
    translated source stays beside it, for reading when debugging."""
    translated = directory / f"{key}.cpp"
    translated.write_text(unit.text)
    args = [
        rt.cxx,
        *rt.flags,
        "-include",
        str(rt.launch_header),
        "-I",
        str(rt.include_dir),
        *(["-iquote", str(own_dir)] if own_dir else []),
        *[f"-I{d}" for d in dirs],
        *define_flags,
        *flags,
        "-x",
        "c++",
        str(translated),
        "-x",
        "none",
        "-shared",
        "-o",
        str(scratch),
        f"-L{rt.directory}",
        f"-l:{LIBRARY_NAME}",
        f"-Wl,-rpath,{rt.directory}",
    ]
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise compile_error(proc.stderr, source, display)
