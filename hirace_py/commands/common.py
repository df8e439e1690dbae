"""Argument helpers shared by sub-commands: -I/-D, --config, output files."""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from hirace_py import source_text
from hirace_py.config import Config, load
from hirace_py.errors import HiraceError, InputError


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions as written; each option's help ends with its default, when it
    has one worth saying and the help does not say it already."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        # A switch (store_true/store_false): its default is the other state,
        # and `--no-x (default: True)` would read as the switch being on.
        switch = action.nargs == 0
        if ("default" in text or default in (None, False, [], argparse.SUPPRESS)
                or not action.option_strings or switch):  # fmt: skip
            return text
        return f"{text} (default: {default})"


def dims(text: str) -> tuple[int, int, int]:
    """A grid or block given as X, X,Y or X,Y,Z (positive integers)."""
    try:
        items = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected X[,Y[,Z]] (integers)") from None
    if not 1 <= len(items) <= 3 or min(items) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected 1 to 3 positive integers")
    padded = [*items, 1, 1][:3]
    return padded[0], padded[1], padded[2]


def add_compile_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                   help="add DIR to the include path (as nvcc -I)")  # fmt: skip
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VAL]",
                   help="define a macro (as nvcc -D)")  # fmt: skip
    p.add_argument("--config", type=Path, help="hirace.toml (default: ./hirace.toml if present)")


def defines(args: argparse.Namespace, more: tuple[str, ...] = ()) -> dict[str, str | int | None]:
    """The -D options (then `more` of them, `NAME[=VALUE]`) as a macro table."""
    out: dict[str, str | int | None] = {}
    for d in (*args.defines, *more):
        name, _, value = d.partition("=")
        if not name.isidentifier():
            raise HiraceError(f"-D {d}: {name!r} is not a macro name")
        out[name] = value if _ else None
    return out


def config(args: argparse.Namespace) -> Config:
    if args.config is not None:
        return load(args.config)
    default = Path("hirace.toml")
    return load(default) if default.is_file() else Config()


def read_source(path: Path) -> str:
    """A source file's text; InputError naming the file if unreadable, not text or empty."""
    try:
        text = source_text.read(path)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    except source_text.BinaryFile as exc:
        raise InputError(str(exc)) from None
    if not text.strip():
        raise InputError(f"{path}: the file is empty")
    return text


class Output:
    """Where a report goes: stdout, or a file checked to be writable before the run
    (so an unwritable path is an error before any work) and written at the end
    (so a run that fails leaves no file behind)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        if path is None:
            return
        if path.is_dir():
            raise InputError(f"{path}: cannot write: {os.strerror(errno.EISDIR)}")
        parent = path.parent if str(path.parent) else Path(".")
        if not parent.is_dir():
            raise InputError(f"{path}: cannot write: {os.strerror(errno.ENOENT)}")
        target = path if path.exists() else parent
        if not os.access(target, os.W_OK):
            raise InputError(f"{path}: cannot write: {os.strerror(errno.EACCES)}")

    @property
    def to_stdout(self) -> bool:
        return self.path is None

    def write(self, text: str) -> None:
        if self.path is None:
            sys.stdout.flush()
            sys.stdout.buffer.write(source_text.encode(text))
            sys.stdout.buffer.flush()
            return
        try:
            source_text.write(self.path, text)
        except OSError as exc:
            raise InputError(f"{self.path}: cannot write: {exc.strerror}") from None


@contextlib.contextmanager
def program_output_to_stderr(active: bool) -> Iterator[None]:
    """While active, what kernels print (the CPU backend's echo, a GPU's printf on
    file descriptor 1) goes to stderr, keeping stdout for the report alone."""
    if not active:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 1)
        os.close(saved)
