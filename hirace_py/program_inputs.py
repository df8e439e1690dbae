"""What each input of `hirace build` is, decided as nvcc decides it: by its suffix.

* `.cu`: CUDA, instrumented as a program unit.
* `.cpp`, `.cc`, `.cxx`, `.c++`, `.cp`, `.C`: C++. One that includes a CUDA
  header (itself or through its own headers) calls the CUDA runtime API, so
  it is built as CUDA host code: instrumented as a program unit (its
  `cudaMalloc`s register the memory the kernels use) and compiled as a `.cu`
  (nvcc; or g++ against the CPU backend's runtime). Any other C++ source is
  compiled as C++ by the host compiler.
* `.c`: C, compiled by the C compiler (`cc`, or `$HIRACE_CC` for `--cpu`), K&R
  definitions included.
* `.o`, `.obj`, `.a`, `.so` (and `.so.N`), `.lo`: linked in as given.

Linker flags (`-l`, `-L`, `-Wl,...`) are kept in the order given and passed
after every input, as nvcc does.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from hirace_py.cuda_headers import CUDA_HEADERS
from hirace_py.errors import HiraceError
from hirace_py.includes import INCLUDE_RE, local_headers

CUDA = "cuda"
CXX = "c++"
C = "c"
LINK = "link"

CXX_SUFFIXES = frozenset({".cpp", ".cc", ".cxx", ".c++", ".cp", ".C"})
LINK_SUFFIXES = frozenset({".o", ".obj", ".a", ".so", ".lo"})
# Headers whose inclusion makes C++ host code a CUDA program's.
_CUDA_INCLUDES = frozenset(CUDA_HEADERS) | {"helper_cuda.h", "cuda_runtime.h", "cuda.h"}
_SHARED_LIBRARY = re.compile(r"\.so(\.\d+)*\Z")


def kind_of(path: Path, text: str | None, include_dirs: tuple[str, ...]) -> str:
    """CUDA, CXX, C or LINK for an input (`text`: a source's contents)."""
    suffix = path.suffix
    if suffix == ".cu":
        return CUDA
    if suffix in LINK_SUFFIXES or _SHARED_LIBRARY.search(path.name):
        return LINK
    if suffix == ".c":
        return C
    if suffix in CXX_SUFFIXES:
        return CUDA if text is not None and uses_cuda(path, text, include_dirs) else CXX
    raise HiraceError(
        f"{path}: unknown input type '{suffix or path.name}' (expected .cu, a C or C++ "
        "source, an object file or a library)"
    )


def uses_cuda(path: Path, text: str, include_dirs: tuple[str, ...]) -> bool:
    """Whether a C++ source includes a CUDA header, itself or through its headers."""
    dirs = [path.parent.resolve(), *(Path(d).resolve() for d in include_dirs)]
    texts = [text, *(data.decode(errors="replace") for _, data in local_headers(text, dirs))]
    return any(
        os.path.basename(name) in _CUDA_INCLUDES for t in texts for _, name in INCLUDE_RE.findall(t)
    )


def c_compiler() -> str:
    """The C compiler for `--cpu` builds: `$HIRACE_CC`, else cc, else gcc."""
    return os.environ.get("HIRACE_CC") or shutil.which("cc") or "gcc"


def nvcc_link_flags(flags: tuple[str, ...]) -> list[str]:
    """Linker flags as nvcc takes them: `-Wl,a,b` becomes `-Xlinker a,b`."""
    out: list[str] = []
    for flag in flags:
        if flag.startswith("-Wl,"):
            out += ["-Xlinker", flag[4:]]
        else:
            out.append(flag)
    return out
