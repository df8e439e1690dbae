"""Reading a TOML input file, every failure one error naming the file."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from hirace_py.errors import HiraceError


def read(path: Path, what: str, error: type[HiraceError]) -> dict[str, Any]:
    """The parsed document; `error` (naming `path` and saying it should be `what`,
    e.g. "a TOML launch spec") if it cannot be read, is not text or not TOML."""
    try:
        return tomllib.loads(path.read_text())
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise error(f"{path}: not a UTF-8 text file ({what})") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: invalid TOML: {exc}") from None
