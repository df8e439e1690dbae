"""The one Jinja environment for every template under templates/ (package hirace_py.templates)."""

from __future__ import annotations

import functools
import importlib.resources
from pathlib import Path

import jinja2

from hirace_py import cxx_enums, host_outline


def template_dir() -> Path:
    """Directory holding the templates, in a source checkout or an installed package."""
    return Path(str(importlib.resources.files("hirace_py.templates")))


@functools.cache
def environment(trim: bool = False) -> jinja2.Environment:
    """Strict environment: an undefined variable in a template is an error, never empty text.

    Every template can call `cxx_enum(name)` (see `hirace_py.cxx_enums`) and
    use the filter `outlined` (`hirace_py.host_outline`).

    `trim` drops the newline after a block tag and the indentation before it,
    for templates whose control flow sits on lines of its own.
    """
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(template_dir()),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=trim,
        lstrip_blocks=trim,
    )
    # `cxx_enum("Name")`: the C++ declaration of an enum shared with Python.
    env.globals["cxx_enum"] = cxx_enums.render
    # `{% filter outlined %}`: definitions, or declarations in an outlined unit.
    env.filters["outlined"] = host_outline.outlined
    return env
