"""Argument helpers shared by sub-commands: -I/-D, --config, output files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hirace_py.config import Config, load
from hirace_py.errors import HiraceError


def add_compile_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                   help="add DIR to the include path (as nvcc -I)")  # fmt: skip
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VAL]",
                   help="define a macro (as nvcc -D)")  # fmt: skip
    p.add_argument("--config", type=Path, help="hirace.toml (default: ./hirace.toml if present)")


def defines(args: argparse.Namespace) -> dict[str, str | int | None]:
    out: dict[str, str | int | None] = {}
    for d in args.defines:
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
    try:
        return path.read_text()
    except OSError as exc:
        raise HiraceError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise HiraceError(f"{path}: not a UTF-8 text file") from None


def write_output(text: str, path: Path | None) -> None:
    if path is None:
        sys.stdout.write(text)
        return
    try:
        path.write_text(text)
    except OSError as exc:
        raise HiraceError(f"{path}: cannot write: {exc.strerror}") from None
