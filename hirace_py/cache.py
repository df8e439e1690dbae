"""Where hirace keeps what it builds (`$HIRACE_CACHE`, else
`~/.cache/hirace/cpu`), and how anything in it is built once.

Every cached thing (a runtime directory, a kernel library, a program, a
header directory) is built by `build_once`: under a file lock, so that of
several processes wanting it one builds and the others wait and reuse it, into
a scratch path that is moved into place whole, so that no reader ever sees a
half-built one. Single files that others may read while they change go through
`write_if_changed`.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from hirace_py import source_text


def cache_root() -> Path:
    """The cache directory (not created)."""
    configured = os.environ.get("HIRACE_CACHE")
    root = Path(configured) if configured else Path.home() / ".cache" / "hirace" / "cpu"
    return root.expanduser()


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock between processes building the same thing. The lock
    file goes once the build succeeded: processes still waiting on it then
    find the result, and later ones never take the lock."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
            path.unlink(missing_ok=True)
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build_once(target: Path, build: Callable[[Path], None], done: str | None = None) -> Path:
    """`target` (a file or a directory), built if it is not there yet.

    `build(scratch)` makes the file or directory `scratch` (a path that does
    not exist yet, in a fresh directory beside `target`); when it returns,
    `scratch` replaces `target` whole (a stale `target` is removed first).
    `done`, a name inside a directory `target`, is the file whose presence
    says the build finished (default: `target` itself). If `build` raises,
    the exception propagates and nothing is left but the lock file (the next
    call builds again).
    """
    marker = target / done if done else target
    if marker.exists():
        return target
    with file_lock(target.with_name(target.name + ".lock")):
        if marker.exists():
            return target
        room = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
        room.chmod(0o755)
        try:
            scratch = room / target.name
            build(scratch)
            if target.is_dir():
                shutil.rmtree(target)
            os.replace(scratch, target)
        finally:
            shutil.rmtree(room, ignore_errors=True)
    return target


def write_if_changed(path: Path, text: str) -> None:
    """Writes `text` to `path` unless it holds it already, atomically (readers
    in other processes see the old file or the new one, never a part)."""
    data = source_text.encode(text)  # user source need not be UTF-8
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
