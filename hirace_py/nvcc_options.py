"""What `--nvcc-flags` means for a program built for the CPU backend.

On a GPU build the flags go to nvcc as given. On the CPU backend g++ compiles
the whole program as host code, so nvcc's options split three ways:

* host-compiler options (`-Xcompiler A,B`, `--compiler-options=A`) and the
  preprocessor's (`-I`, `-D`, `-U`, `-isystem`, `-include`) are given to g++
  for every unit, and the host-compiler ones at link time too (as nvcc
  does: `-Xcompiler -fopenmp` both compiles and links OpenMP);
* linker options (`-Xlinker A`, `-l`, `-L`) are given to the link;
* everything else (GPU code generation, ptxas, device debug, the language
  dialect: the CPU backend always compiles C++17 at its own optimisation
  level) is not applied, and `not_applied` lists it so that the command can
  say so in one line rather than drop it silently.

`split` never fails: an option it does not know is not applied and listed.
"""

from __future__ import annotations

from dataclasses import dataclass

# Options that take a value (as the next word or after `=`), by every name
# nvcc gives them; the value of one not applied is listed with it.
_HOST_COMPILER = frozenset({"-Xcompiler", "--compiler-options"})
_LINKER = frozenset({"-Xlinker", "--linker-options"})
_PREPROCESSOR = {
    "-I": "-I", "--include-path": "-I", "-D": "-D", "--define-macro": "-D",
    "-U": "-U", "--undefine-macro": "-U", "-isystem": "-isystem",
    "--system-include": "-isystem", "-include": "-include", "--pre-include": "-include",
}  # fmt: skip
_LINK = {"-l": "-l", "--library": "-l", "-L": "-L", "--library-path": "-L"}
_VALUED = frozenset({
    "-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode", "--generate-code",
    "-Xptxas", "--ptxas-options", "-Xnvlink", "--nvlink-options", "-Xcudafe",
    "-maxrregcount", "--maxrregcount", "-ccbin", "--compiler-bindir", "-std", "--std",
    "-default-stream", "--default-stream", "-cudart", "--cudart", "-t", "--threads",
    "-diag-suppress", "--diag-suppress", "-rdc", "--relocatable-device-code",
})  # fmt: skip
# Options without a value that look like an attached -l, -L, -I, -D or -U one.
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
        elif word[:2] in ("-I", "-D", "-U", "-l", "-L") and word not in _DEVICE_WORDS:
            (link if word[:2] in ("-l", "-L") else compile_).append(word)
        elif name in _VALUED:
            dropped.append(word if attached is not None else f"{word} {value_of(name, None)}")
        else:
            dropped.append(word)
        i += 1
    return HostFlags((*compile_, *host), (*host, *link), tuple(dropped))
