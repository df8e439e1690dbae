"""Finding the codes of an Indigo-generated suite and reading their labels.

A `.cu` file anywhere under the suite directory is an Indigo code when it
defines `test_kernel` and includes `indigo_cuda.h` (docs/semantics.md section 5);
every other `.cu` file is skipped with the reason, never dropped silently.

Labels come from the file name alone: it encodes the pattern, its options and
then the bug tags. `atomicBug`, `raceBug`, `syncBug` and `guardBug` plant data
races; `boundsBug` plants an out-of-bounds access, which is not a race. A
token that ends in `Bug` but is none of these makes the code unlabelable: it
is run and reported as an error rather than guessed at.

`data_t` is read from the code's `typedef <type> data_t;` and mapped to the
NumPy dtype of that C type on this platform (LP64: `long` is 64 bits).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hirace_py.errors import HiraceError

RACE_TAGS = ("atomicBug", "raceBug", "syncBug", "guardBug")
BOUNDS_TAG = "boundsBug"
BUG_TAGS = (*RACE_TAGS, BOUNDS_TAG)

_TEST_KERNEL = re.compile(r"__global__\s+void\s+test_kernel\s*\(")
INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]indigo_cuda\.h[>"][^\n]*$', re.M)
_TYPEDEF = re.compile(r"^[ \t]*typedef\s+([A-Za-z_][\w \t]*?)\s+data_t\s*;", re.M)

# The C type names (whitespace-normalised) of each NumPy dtype on LP64 Linux.
_TYPE_NAMES = {
    np.int8: "char, signed char, int8_t",
    np.uint8: "unsigned char, uint8_t",
    np.int16: "short, short int, signed short, signed short int, int16_t",
    np.uint16: "unsigned short, unsigned short int, uint16_t",
    np.int32: "int, signed, signed int, int32_t",
    np.uint32: "unsigned, unsigned int, uint32_t",
    np.int64: "long, long int, signed long, long long, long long int, signed long long, "
    "signed long long int, int64_t",
    np.uint64: "unsigned long, unsigned long int, unsigned long long, unsigned long long int, "
    "uint64_t, size_t",
    np.float32: "float",
    np.float64: "double",
}
DATA_TYPES: dict[str, np.dtype] = {
    name.strip(): np.dtype(dtype)
    for dtype, names in _TYPE_NAMES.items()
    for name in names.split(",")
}


@dataclass(frozen=True)
class Labels:
    """What a code's file name says it contains."""

    bugs: tuple[str, ...]
    unknown: tuple[str, ...]
    """Tokens that look like bug tags (end in `Bug`) but are not known ones."""

    @property
    def racy(self) -> bool:
        return any(tag in RACE_TAGS for tag in self.bugs)

    @property
    def bounds(self) -> bool:
        return BOUNDS_TAG in self.bugs


def labels_from_name(stem: str) -> Labels:
    """The bug tags in a code's file name (without `.cu`), in file-name order.

    Tokens are separated by anything that is not a letter or digit, so both
    `push_warp_syncBug` and `push-warp-syncBug` carry `syncBug`.
    """
    tokens = [t for t in re.split(r"[^A-Za-z0-9]+", stem) if t]
    bugs = tuple(t for t in tokens if t in BUG_TAGS)
    unknown = tuple(t for t in tokens if t.endswith("Bug") and t not in BUG_TAGS)
    return Labels(bugs, unknown)


@dataclass(frozen=True)
class Code:
    """One Indigo code: where it is, what it says about itself, its exact text."""

    path: Path
    rel: str
    """Path relative to the suite directory (POSIX separators): the code's key."""
    source: str
    sha: str
    labels: Labels
    data_t: str | None
    """The `data_t` type as written (whitespace-normalised), None if not found."""

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype of `data_t`; HiraceError if it is missing or unknown."""
        if self.data_t is None:
            raise HiraceError(f"{self.rel}: no `typedef <type> data_t;` found")
        if self.data_t not in DATA_TYPES:
            raise HiraceError(
                f"{self.rel}: data_t is `{self.data_t}`, which hirace cannot map to an "
                f"array type (known: {', '.join(sorted(DATA_TYPES))})"
            )
        return DATA_TYPES[self.data_t]


@dataclass(frozen=True)
class Skipped:
    """A `.cu` file under the suite directory that is not an Indigo code."""

    rel: str
    reason: str


def read_code(path: Path, root: Path) -> Code | Skipped:
    """Classify one `.cu` file under `root`."""
    rel = path.relative_to(root).as_posix()
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return Skipped(rel, f"cannot read: {exc.strerror}")
    try:
        source = raw.decode()
    except UnicodeDecodeError:
        return Skipped(rel, "not a UTF-8 text file")
    missing = [what for what, found in (
        ("does not define test_kernel", _TEST_KERNEL.search(source)),
        ("does not include indigo_cuda.h", INCLUDE_RE.search(source)),
    ) if not found]  # fmt: skip
    if missing:
        return Skipped(rel, " and ".join(missing))
    match = _TYPEDEF.search(source)
    data_t = " ".join(match.group(1).split()) if match else None
    return Code(path, rel, source, hashlib.sha256(raw).hexdigest(), labels_from_name(path.stem),
                data_t)  # fmt: skip


def discover(root: Path) -> tuple[list[Code], list[Skipped]]:
    """Every Indigo code under `root` (recursively, sorted by relative path), and
    every other `.cu` file with why it was skipped."""
    if not root.is_dir():
        raise HiraceError(f"{root}: not a directory")
    codes: list[Code] = []
    skipped: list[Skipped] = []
    for path in sorted(root.rglob("*.cu"), key=lambda p: p.relative_to(root).as_posix()):
        if not path.is_file():
            continue
        item = read_code(path, root)
        (codes if isinstance(item, Code) else skipped).append(item)  # type: ignore[arg-type]
    return codes, skipped
