"""Source text that need not be UTF-8: bytes in, the same bytes out.

Real code has comments in Latin-1 (an accented name as the single byte 0xe9)
and nvcc reads it as bytes. hirace decodes source with `surrogateescape`, so
every byte it does not rewrite is encoded back unchanged: every reader and
writer of user source and its rewritten copies goes through here.
"""

from __future__ import annotations

from pathlib import Path

ERRORS = "surrogateescape"


class BinaryFile(ValueError):
    """The file holds NUL bytes: it is not source text."""


def decode(data: bytes) -> str:
    """Text of source bytes; undecodable bytes survive as surrogates."""
    return data.decode("utf-8", ERRORS)


def encode(text: str) -> bytes:
    """The bytes `decode` read `text` from."""
    return text.encode("utf-8", ERRORS)


def read(path: Path) -> str:
    """A source file's text (OSError as open raises it; BinaryFile for NUL bytes)."""
    data = path.read_bytes()
    if b"\0" in data:
        raise BinaryFile(f"{path}: not a text file (it holds NUL bytes)")
    return decode(data)


def write(path: Path, text: str) -> None:
    """Write text read by `read` (or rewritten from it) byte for byte."""
    path.write_bytes(encode(text))
