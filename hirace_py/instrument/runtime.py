"""Render the instrumentation runtime header from the FSM table and the state structs."""

from __future__ import annotations

import functools
from pathlib import Path

from hirace_py import fsm
from hirace_py.instrument import state
from hirace_py.templating import environment

HEADER_NAME = "hirace_runtime.cuh"


@functools.cache
def render_header() -> str:
    """The runtime header's text: identical for every kernel and launch."""
    return (
        environment()
        .get_template(HEADER_NAME + ".j2")
        .render(
            state_bits=fsm.STATE_BITS,
            race=fsm.RACE,
            n_states=fsm.N_STATES,
            table=[int(v) for v in fsm.FLAT_TRANSITIONS],
            state_names=fsm.STATES,
            max_shared=state.MAX_SHARED_VARS,
            region_fields=state.cxx_fields(state.REGION_FIELDS),
            counter_fields=state.cxx_fields(state.COUNTER_FIELDS),
            record_fields=state.cxx_fields(state.RECORD_FIELDS),
            log_fields=state.cxx_fields(state.LOG_FIELDS),
            state_fields=state.cxx_fields(state.STATE_FIELDS),
        )
    )


def write_include_dir(directory: Path) -> Path:
    """Write the header into `directory` (created if needed) unless it is current."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / HEADER_NAME
    text = render_header()
    if not path.exists() or path.read_text() != text:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text)
        tmp.replace(path)
    return directory
