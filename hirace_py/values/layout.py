"""The values engine's host/device structs: one definition, two renderings.

The runtime template (templates/values_runtime.cuh.j2) renders these fields
into C++ structs; the host builds and reads them as ctypes structures, as
hirace_py.instrument.state does for the FSM engine.
"""

from __future__ import annotations

import ctypes

from hirace_py.instrument.state import BOUNDS_SLACK, U32, U64, cxx_fields

MAX_OBJECTS = 64
"""Monitored objects (argument arrays, `__device__` and `__shared__` variables) per launch."""

KIND_WW, KIND_RW = 0, 1
"""Conflict kinds in a record: two warps (blocks) changed a byte; one read what another changed."""

SPACE_GLOBAL, SPACE_SHARED = 0, 1

REGION_FIELDS: list[tuple[str, str, str]] = [
    ("base", U64, "first byte of a monitored global object"),
    ("end", U64, "one past its last byte"),
    ("gran_log2", U32, "log2 of the bytes per reported element"),
    ("var", U32, "variable id, for reports"),
]

COUNTER_FIELDS: list[tuple[str, str, str]] = [
    ("intervals", U64, "barrier intervals checked (per block: barriers passed + 1)"),
    ("atomic_intervals", U64, "barrier intervals in which a monitored location was accessed "
                              "atomically"),
    ("atomic_accesses", U64, "atomic accesses (they act on memory directly, unprivatized)"),
    ("atomic_bytes", U64, "distinct bytes accessed atomically: never checked"),
    ("atomic_plain", U64, "plain accesses to bytes already accessed atomically (unprivatized, "
                          "unchecked)"),
    ("releases", U64, "atomics that may release (after a fence by their thread, or with "
                      "release order): message passing, not modelled"),
    ("message_conflicts", U64, "conflicting bytes not reported: between warps (blocks) of which "
                               "one released and the other used an atomic"),
    ("unmonitored", U64, "accesses to memory in no monitored object (local, unregistered)"),
    ("straddling", U64, "accesses that run past the end of their object (unchecked)"),
    ("conflict_bytes", U64, "bytes found in a conflict"),
    ("report_overflow", U64, "conflict records dropped because the table was full"),
    ("objects_dropped", U64, "__shared__ registrations dropped: object table full"),
    ("cooperative", U64, "1: a cooperative launch, whose blocks run at once: not checked"),
    ("out_of_bounds", U64, "accesses just outside a monitored global object, not performed "
                           "(bounds_continue)"),
]

RECORD_FIELDS: list[tuple[str, str, str]] = [
    ("key", U64, "kind << 62 | (site_a + 1) << 31 | (site_b + 1); 0 marks a free slot"),
    ("unit", U64, "element index (offset >> gran_log2) of the first conflicting byte"),
    ("last_unit", U64, "element index of the last conflicting byte (counts elements once)"),
    ("count", U32, "elements (a run of bytes counts once) in conflict with this pair of sites"),
    ("var", U32, "variable id"),
    ("space", U32, "0 global, 1 shared"),
    ("tid_a", U32, "thread (linear in its block) of access a"),
    ("block_a", U32, "block (linear, low 32 bits) of access a"),
    ("tid_b", U32, "thread of access b"),
    ("block_b", U32, "block of access b"),
    ("pad", U32, ""),
]

STATE_FIELDS: list[tuple[str, str, str]] = [
    ("regions", f"VRegion[{MAX_OBJECTS}]", "monitored global objects"),
    ("records", U64, "address of the VRecord table"),
    ("counters", U64, "address of the VCounters"),
    ("launch_id", U64, "changes with every launch: the runtime resets its state"),
    ("dyn_shared_bytes", U64, "dynamic shared memory of this launch"),
    ("record_cap", U32, "slots in the VRecord table (a power of two)"),
    ("n_regions", U32, "regions in use"),
    ("dyn_gran_log2", U32, "log2 element size of dynamic shared memory"),
    ("enabled", U32, "0: accesses go to memory directly, nothing is checked"),
    ("bounds_continue", U32, "1: an access just outside a global object is not performed "
                             "(reads give 0), as HIRACE_BOUNDS=continue asks"),
    ("pad", U32, ""),
]

_C = {U64: ctypes.c_uint64, U32: ctypes.c_uint32}


class VRegion(ctypes.Structure):
    _fields_ = [(n, _C[t]) for n, t, _ in REGION_FIELDS]


class VCounters(ctypes.Structure):
    _fields_ = [(n, _C[t]) for n, t, _ in COUNTER_FIELDS]


class VRecord(ctypes.Structure):
    _fields_ = [(n, _C[t]) for n, t, _ in RECORD_FIELDS]


class VState(ctypes.Structure):
    _fields_ = [(n, VRegion * MAX_OBJECTS if t.startswith("VRegion") else _C[t])
                for n, t, _ in STATE_FIELDS]  # fmt: skip


def template_values() -> dict[str, object]:
    """What the runtime template needs: the struct fields as C++ declarations."""
    return {
        "max_objects": MAX_OBJECTS,
        "region_fields": cxx_fields(REGION_FIELDS),
        "counter_fields": cxx_fields(COUNTER_FIELDS),
        "record_fields": cxx_fields(RECORD_FIELDS),
        "state_fields": cxx_fields(STATE_FIELDS),
        "kind_ww": KIND_WW,
        "kind_rw": KIND_RW,
        "space_global": SPACE_GLOBAL,
        "space_shared": SPACE_SHARED,
        "bounds_slack": BOUNDS_SLACK,
    }
