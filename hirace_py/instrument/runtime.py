"""Render the instrumentation runtime header from the FSM table and the state structs."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import hirace_py
from hirace_py import cxx_enums, fastpath, fsm, shadow
from hirace_py.cache import build_once, cache_root, write_if_changed
from hirace_py.instrument import state
from hirace_py.templating import environment

HEADER_NAME = "hirace_runtime.cuh"
HOST_HEADER_NAME = "hirace_host.h"


@functools.cache
def render_header() -> str:
    """The runtime header's text: identical for every kernel and launch."""
    return (
        environment()
        .get_template(HEADER_NAME + ".j2")
        .render(
            state_bits=fsm.STATE_BITS,
            race=fsm.RACE,
            init=fsm.INIT,
            keeps=fastpath.KEEPS,
            n_actions=len(fsm.Action),
            action_names=[cxx_enums.ENUMS["Action"].enumerator(a) for a in fsm.Action],
            ordered_before_last=sum(1 << i for i in fsm.ORDERED_BEFORE_LAST),
            message_state=fsm.MESSAGE_STATE,
            message_readers=sum(1 << i for i in fsm.MESSAGE_READERS),
            fresh=fastpath.FRESH,
            in_line=fastpath.IN_LINE,
            in_line_held=fastpath.IN_LINE_HELD,
            out_of_line=fastpath.OUT_OF_LINE,
            n_states=fsm.N_STATES,
            table=[int(v) for v in fsm.FLAT_TRANSITIONS],
            state_names=fsm.STATES,
            max_shared=state.MAX_SHARED_VARS,
            shadow_page_log2=state.SHADOW_PAGE_LOG2,
            page_map_log2=state.PAGE_MAP_LOG2,
            region_fields=state.cxx_fields(state.REGION_FIELDS),
            counter_fields=state.cxx_fields(state.COUNTER_FIELDS),
            record_fields=state.cxx_fields(state.RECORD_FIELDS),
            log_fields=state.cxx_fields(state.LOG_FIELDS),
            bounds_fields=state.cxx_fields(state.BOUNDS_FIELDS),
            state_fields=state.cxx_fields(state.STATE_FIELDS),
            bounds_slack=state.BOUNDS_SLACK,
        )
    )


@functools.cache
def render_host_header(engine: str = "fsm") -> str:
    """The whole-program host runtime, with the shadow-word policy of hirace_py.shadow
    and the dump format hirace_py.dump reads. `engine` "values" renders the host
    side of the values engine (hirace_py.values.layout's records and counters)."""
    from hirace_py import dump, host_events, host_record
    from hirace_py.values import layout

    if engine == "values":
        counters, records = layout.COUNTER_FIELDS, layout.RECORD_FIELDS
    else:
        counters, records = state.COUNTER_FIELDS, state.RECORD_FIELDS
    return (
        environment()
        .get_template(HOST_HEADER_NAME + ".j2")
        .render(
            engine=engine,
            version=hirace_py.__version__,
            word_bits=shadow.WORD_BITS,
            max_gran_log2=shadow.MAX_GRAN_LOG2,
            state_bits=fsm.STATE_BITS,
            min_clock_bits=shadow.MIN_CLOCK_BITS,
            site_clock_bits=shadow.SITE_CLOCK_BITS,
            release_bits=shadow.RELEASE_BITS,
            max_threads=shadow.MAX_THREADS_PER_BLOCK,
            max_regions=state.MAX_REGIONS,
            shadow_page_log2=state.SHADOW_PAGE_LOG2,
            page_map_log2=state.PAGE_MAP_LOG2,
            max_objects=layout.MAX_OBJECTS,
            fields=shadow.FIELD_ORDER[1:],
            counter_names=[name for name, _, _ in counters],
            bounds_cap=state.BOUNDS_CAP,
            record_names=[name for name, _, _ in records],
            bounds_names=[name for name, _, _ in state.BOUNDS_FIELDS],
            allocation_bit=f"{state.ALLOCATION_BIT:#x}u",
            ops=host_events.OPS,
            record_tags=host_record.TAGS,
            record_magic=host_record.MAGIC.decode(),
            event_fields=host_record.EVENT_FIELDS,
            event_flags=host_record.EVENT_FLAGS,
            access_fields=host_record.ACCESS_FIELDS,
            alloc_kinds=host_events.ALLOC_KINDS,
            host_kinds=sorted(host_events.HOST_KINDS),
            footprint_class=host_events.FOOTPRINT_CLASS,
            footprint_runs=host_events.FOOTPRINT_RUNS,
            dump_format=dump.FORMAT,
            dump_version=dump.VERSION,
        )
    )


def include_dir() -> str:
    """A directory holding the current runtime headers, for `-I`.

    The directory is named by a hash of the headers' text, so processes using
    different versions never overwrite each other's, and it is written once,
    atomically, before anyone can see it.
    """
    texts = (render_header(), render_host_header())
    digest = hashlib.sha256("\0".join(texts).encode()).hexdigest()[:16]
    return str(build_once(cache_root() / f"include-{digest}", write_include_dir))


def write_include_dir(directory: Path, engine: str = "fsm") -> Path:
    """Write the headers of `engine` ("fsm" or "values": the race engine a whole
    program is built with) into `directory` (created if needed) unless they are
    current. This is where a program's engine is chosen: the instrumented and
    translated sources are the same for both."""
    if engine == "values":
        from hirace_py.values.runtime import render_header as render_values

        device = render_values()
    else:
        device = render_header()
    for name, text in ((HEADER_NAME, device), (HOST_HEADER_NAME, render_host_header(engine))):
        write_if_changed(directory / name, text)
    return directory
