"""The local headers a source includes, found the way a compiler would.

Used for cache keys (a header's change rebuilds what includes it) and to find
the headers the parse must read from other bytes than their files'. Headers
found in no directory of the search (system headers) are not followed.
"""

from __future__ import annotations

import re
from pathlib import Path

INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.M)


def local_headers(source: str, search: list[Path]) -> list[tuple[str, bytes]]:
    """Contents of the headers the source includes from its own directories,
    recursively: they are part of the cache key. System headers are not."""
    found: dict[Path, bytes] = {}
    pending = [(source, search)]
    while pending:
        text, dirs = pending.pop()
        for _, name in INCLUDE_RE.findall(text):
            for directory in dirs:
                path = (directory / name).resolve()
                if path.is_file():
                    if path not in found:
                        data = path.read_bytes()
                        found[path] = data
                        pending.append((data.decode(errors="replace"), [path.parent, *dirs]))
                    break
    return sorted((str(p), data) for p, data in found.items())
