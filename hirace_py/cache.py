"""Where hirace keeps what it builds: `$HIRACE_CACHE`, else `~/.cache/hirace/cpu`."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """The cache directory (not created)."""
    configured = os.environ.get("HIRACE_CACHE")
    root = Path(configured) if configured else Path.home() / ".cache" / "hirace" / "cpu"
    return root.expanduser()
