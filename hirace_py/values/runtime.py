"""Render the values engine's runtime header into an include directory of its own.

The instrumented source includes "hirace_runtime.cuh"; compiled with this
directory first on the include path it gets the values runtime instead of the
FSM one, so both engines run the same instrumented source.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from hirace_py.cache import build_once, cache_root
from hirace_py.instrument.runtime import HEADER_NAME
from hirace_py.templating import environment
from hirace_py.values import layout

TEMPLATE = "values_runtime.cuh.j2"


@functools.cache
def render_header() -> str:
    """The values runtime header's text: identical for every kernel and launch."""
    return environment().get_template(TEMPLATE).render(**layout.template_values())


def include_dir() -> str:
    """A directory holding the values runtime as `hirace_runtime.cuh`, named by its hash."""
    text = render_header()
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]

    def write(scratch: Path) -> None:
        scratch.mkdir()
        (scratch / HEADER_NAME).write_text(text)

    return str(build_once(cache_root() / f"values-include-{digest}", write))
