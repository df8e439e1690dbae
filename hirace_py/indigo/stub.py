"""hirace's stand-ins for a suite's `indigo_cuda.h`, and pointing codes at them.

A suite's own `indigo_cuda.h` is its host driver: it includes
`<cuda_runtime.h>` and defines `main`, which neither the CPU backend nor a
host build can use, and hirace reproduces the driver in Python instead. So a
code's `#include "indigo_cuda.h"` line is replaced, in place (line numbers do
not change), by an include of a stub by absolute path. Putting a stub
directory first on the include path would not do: for `#include "..."` both
g++ and clang search the including file's own directory before any `-I`
directory, and real suites keep their `indigo_cuda.h` next to the codes.

The stubs provide what the driver header provides to the code: the C and C++
standard headers it includes. The host stub also brings `std::max` and
`std::min` into the global namespace, as CUDA's headers do for host code.
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

from hirace_py.indigo.suite import INCLUDE_RE

_COMMON = """\
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
"""

KERNEL_STUB = f"""\
// hirace stand-in for an Indigo suite's indigo_cuda.h (kernel side): the
// standard headers the driver includes, no driver.
#ifndef HIRACE_INDIGO_KERNEL_STUB_H
#define HIRACE_INDIGO_KERNEL_STUB_H
{_COMMON}#endif
"""

HOST_STUB = f"""\
// hirace stand-in for an Indigo suite's indigo_cuda.h (host build of
// serial_code and verify_result): the driver's standard headers, and min/max
// at global scope as CUDA provides them to host code.
#ifndef HIRACE_INDIGO_HOST_STUB_H
#define HIRACE_INDIGO_HOST_STUB_H
{_COMMON}using std::max;
using std::min;
#endif
"""

_FILES = {
    "kernel/indigo_cuda.h": KERNEL_STUB,
    "host/indigo_cuda.h": HOST_STUB,
}


@functools.cache
def stub_root() -> Path:
    """The directory holding the stubs (written once per process if stale)."""
    root = Path(tempfile.gettempdir()) / f"hirace-indigo-stubs-{os.getuid()}"
    for name, text in _FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text() != text:
            # Write-then-rename with a per-process name: parallel workers never
            # see a half-written header.
            scratch = path.with_name(f".{path.name}.{os.getpid()}")
            scratch.write_text(text)
            scratch.replace(path)
    return root


def redirect(source: str, which: str) -> str:
    """`source` with its `indigo_cuda.h` include pointing at the `which` stub
    ("kernel" or "host"); every other byte, and so every line number,
    is kept."""
    header = stub_root() / which / "indigo_cuda.h"
    return INCLUDE_RE.sub(f'#include "{header}"', source)
