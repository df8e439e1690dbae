"""The one Jinja environment for every template under templates/ (package hirace_py.templates)."""

from __future__ import annotations

import functools
import importlib.resources
from pathlib import Path

import jinja2


def template_dir() -> Path:
    """Directory holding the templates, in a source checkout or an installed package."""
    return Path(str(importlib.resources.files("hirace_py.templates")))


@functools.cache
def environment() -> jinja2.Environment:
    """Strict environment: an undefined variable in a template is an error, never empty text."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(template_dir()),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
