"""What `--nvcc-flags` means for a program built for the CPU backend.

On a GPU build the flags go to nvcc as given. On the CPU backend g++ compiles
the whole program as host code, so nvcc's options split three ways:

* host-compiler options (`-Xcompiler A,B`, `--compiler-options=A`) and the
  preprocessor's (`-U`, `-isystem`, `-include`) are given to g++ for every
  unit, and the host-compiler ones at link time too (as nvcc does:
  `-Xcompiler -fopenmp` both compiles and links OpenMP);
* linker options (`-Xlinker A`, `-l`, `-L`) are given to the link;
* everything else (GPU code generation, ptxas, device debug, the language
  dialect: the CPU backend always compiles C++17 at its own optimisation
  level) is not applied, and `not_applied` lists it so that the command can
  say so in one line rather than drop it silently.

`split` never fails: an option it does not know is not applied and listed.

`-I` and `-D` are taken out of the flags before either build
(`includes_and_defines`): the instrumenter parses each source with them, as
the compiler will see it, so code under `#ifdef` of a macro given there is
instrumented too.
"""

from __future__ import annotations

from dataclasses import dataclass

# Options that take a value (as the next word or after `=`), by every name
# nvcc gives them; the value of one not applied is listed with it.
_HOST_COMPILER = frozenset({"-Xcompiler", "--compiler-options"})
_LINKER = frozenset({"-Xlinker", "--linker-options"})
_PREPROCESSOR = {
    "-U": "-U", "--undefine-macro": "-U", "-isystem": "-isystem",
    "--system-include": "-isystem", "-include": "-include", "--pre-include": "-include",
}  # fmt: skip
_INCLUDE_OR_DEFINE = {"-I": "-I", "--include-path": "-I", "-D": "-D", "--define-macro": "-D"}
_LINK = {"-l": "-l", "--library": "-l", "-L": "-L", "--library-path": "-L"}
_VALUED = frozenset({
    "-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode", "--generate-code",
    "-Xptxas", "--ptxas-options", "-Xnvlink", "--nvlink-options", "-Xcudafe",
    "-maxrregcount", "--maxrregcount", "-ccbin", "--compiler-bindir", "-std", "--std",
    "-default-stream", "--default-stream", "-cudart", "--cudart", "-t", "--threads",
    "-diag-suppress", "--diag-suppress", "-rdc", "--relocatable-device-code",
})  # fmt: skip
# Options without a value that look like an attached -l, -L or -U one.
_DEVICE_WORDS = frozenset({"-lineinfo", "--generate-line-info", "-dlink", "--device-link"})
# Host-compiler options nvcc itself accepts without -Xcompiler.
_HOST_WORDS = frozenset({"-g", "--debug", "-w", "--disable-warnings", "-pg"})


@dataclass(frozen=True)
class HostFlags:
    """`--nvcc-flags` as the CPU backend applies them."""

    compile: tuple[str, ...] = ()
    """For g++ on every unit of the program (CUDA, C++ and C sources)."""
    link: tuple[str, ...] = ()
    """For the link, after the program's inputs: the host compiler's options
    and the linker's."""
    not_applied: tuple[str, ...] = ()
    """The options (with their values) the CPU backend has no use for."""


def _name_value(word: str) -> tuple[str, str | None]:
    """`-opt=value` as (`-opt`, `value`); `-Ipath`-style attached values are
    the caller's concern."""
    name, sep, value = word.partition("=")
    return (name, value) if sep else (word, None)


def split(nvcc_flags: tuple[str, ...]) -> HostFlags:
    """Sorts nvcc's options (already split into words) for a CPU build."""
    compile_: list[str] = []
    host: list[str] = []
    link: list[str] = []
    dropped: list[str] = []
    words = list(nvcc_flags)
    i = 0

    def value_of(name: str, attached: str | None) -> str:
        nonlocal i
        if attached is not None:
            return attached
        if i + 1 < len(words):
            i += 1
            return words[i]
        return ""

    while i < len(words):
        word = words[i]
        name, attached = _name_value(word)
        if name in _HOST_COMPILER:
            host += [f for f in value_of(name, attached).split(",") if f]
        elif word in _HOST_WORDS:
            host.append(word)
        elif name in _LINKER:
            link.append("-Wl," + value_of(name, attached))
        elif name in _PREPROCESSOR:
            compile_.append(_PREPROCESSOR[name] + value_of(name, attached))
        elif name in _LINK:
            link.append(_LINK[name] + value_of(name, attached))
        elif word[:2] in ("-U", "-l", "-L") and word not in _DEVICE_WORDS:
            (link if word[:2] in ("-l", "-L") else compile_).append(word)
        elif name in _VALUED:
            dropped.append(word if attached is not None else f"{word} {value_of(name, None)}")
        else:
            dropped.append(word)
        i += 1
    return HostFlags((*compile_, *host), (*host, *link), tuple(dropped))


def includes_and_defines(
    nvcc_flags: tuple[str, ...],
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The `-I` directories and `-D` definitions (`NAME` or `NAME=VALUE`) among
    nvcc's options, in every spelling nvcc takes, and the options without them."""
    dirs: list[str] = []
    defines: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(nvcc_flags):
        word = nvcc_flags[i]
        name, attached = _name_value(word)
        if name in _INCLUDE_OR_DEFINE:
            if attached is None and i + 1 < len(nvcc_flags):
                i += 1
                attached = nvcc_flags[i]
            flag, value = _INCLUDE_OR_DEFINE[name], attached or ""
        elif word[:2] in ("-I", "-D") and len(word) > 2:
            flag, value = word[:2], word[2:]
        else:
            rest.append(word)
            i += 1
            continue
        (dirs if flag == "-I" else defines).append(value)
        i += 1
    return tuple(dirs), tuple(defines), tuple(rest)
