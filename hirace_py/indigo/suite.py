"""Finding the codes of a labeled suite and reading their labels.

Every `.cu` file anywhere under the suite directory is one code: a whole
program (its `main` may live in a header it includes, as the Indigo suites'
driver headers do). hirace knows nothing of the codes' functions; it builds
and runs each program as it is (`hirace_py.indigo.program`).

Labels come from the file name alone. Tokens are separated by anything that
is not a letter or digit; a token ending in `Bug` is a bug tag, and
`No<Tag>` says the bug is absent. Which tags plant what (docs/indigo.md):

- plant a data race: `raceBug`, `atomicBug`, `syncBug`, `guardBug` (Indigo v1
  style, and hirace's mini-suite); `RaceBug`, `SyncBug` (Indigo3);
- plant an out-of-bounds access: `boundsBug` (v1 style); `BoundsBug`,
  `NbrBoundsBug`, `NborBoundsBug` (Indigo3);
- plant neither (wrong results, hangs, undefined values): `ExcessThreadsBug`,
  `FieldBug`, `LivelockBug`, `OverflowBug`, `PrecedenceBug`, `UninitializedBug`
  (Indigo3); of these, `LivelockBug` says the program may never finish, so a
  run that does not is what the label predicts, not an error.

A tag that is in none of these lists makes the code unlabelable: it is run
and reported as an error row rather than guessed at.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from hirace_py.errors import HiraceError

RACE_TAGS = ("raceBug", "atomicBug", "syncBug", "guardBug", "RaceBug", "SyncBug")
BOUNDS_TAGS = ("boundsBug", "BoundsBug", "NbrBoundsBug", "NborBoundsBug")
OTHER_TAGS = ("ExcessThreadsBug", "FieldBug", "LivelockBug", "OverflowBug", "PrecedenceBug",
              "UninitializedBug")  # fmt: skip
HANG_TAGS = ("LivelockBug",)
KNOWN_TAGS = (*RACE_TAGS, *BOUNDS_TAGS, *OTHER_TAGS)


@dataclass(frozen=True)
class Labels:
    """What a code's file name says it contains."""

    bugs: tuple[str, ...]
    """The bug tags present, in file-name order."""
    unknown: tuple[str, ...]
    """Tokens that look like bug tags (end in `Bug`) but are not known ones."""

    @property
    def racy(self) -> bool:
        return any(tag in RACE_TAGS for tag in self.bugs)

    @property
    def bounds(self) -> bool:
        return any(tag in BOUNDS_TAGS for tag in self.bugs)

    @property
    def hangs(self) -> bool:
        """The program may never finish (a planted livelock)."""
        return any(tag in HANG_TAGS for tag in self.bugs)


def _absent(token: str) -> bool:
    """`No<Tag>` for a known tag: the file name says the bug is not there."""
    return token.startswith("No") and token[2:] in KNOWN_TAGS


def labels_from_name(stem: str) -> Labels:
    """The bug tags in a code's file name (without `.cu`)."""
    tokens = [t for t in re.split(r"[^A-Za-z0-9]+", stem) if t]
    bugs = tuple(t for t in tokens if t in KNOWN_TAGS)
    unknown = tuple(t for t in tokens
                    if t.endswith("Bug") and t not in KNOWN_TAGS and not _absent(t))  # fmt: skip
    return Labels(bugs, unknown)


@dataclass(frozen=True)
class Code:
    """One code: where it is, what its name says, and the hash of its text."""

    path: Path
    rel: str
    """Path relative to the suite directory (POSIX separators): the code's key."""
    sha: str
    labels: Labels


def discover(root: Path) -> list[Code]:
    """Every `.cu` file under `root`, recursively, sorted by relative path."""
    if not root.is_dir():
        raise HiraceError(f"{root}: not a directory")
    codes = []
    for path in sorted(root.rglob("*.cu"), key=lambda p: p.relative_to(root).as_posix()):
        if not path.is_file():
            continue
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError as exc:
            raise HiraceError(f"{path}: cannot read: {exc.strerror}") from None
        codes.append(Code(path.resolve(), path.relative_to(root).as_posix(), digest,
                          labels_from_name(path.stem)))  # fmt: skip
    return codes
