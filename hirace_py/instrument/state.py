"""The runtime state shared by host and device: one definition, two renderings.

`STATE_FIELDS` and friends list the fields of the structs the instrumented
code reads (`hirace::State`, filled by the host before each launch) and
writes (`hirace::Counters`, `hirace::RaceRecord`). The runtime header renders
them into C++ structs; the host builds and reads them as ctypes structures.
Fields are fixed-width and ordered so that both layouts agree without padding
surprises (64-bit fields first within each struct).
"""

from __future__ import annotations

import ctypes
from typing import Any

MAX_REGIONS = 256
"""Global regions (allocations) a launch can register."""
MAX_SHARED_VARS = 16
"""`__shared__` variables one thread can have registered at once."""
BOUNDS_SLACK = 4096
"""Bytes past the end (or before the start) of a monitored allocation within
which an access that falls in no allocation is an out-of-bounds access of
that allocation. The CPU backend keeps a guard page of this size after and
before every allocation, so there nothing else can be mapped."""
BOUNDS_CAP = 256
"""Out-of-bounds records a launch keeps (every access is counted)."""
SHADOW_PAGE_LOG2 = 12
"""log2 of the bytes of shadow one entry of the CPU backend's page map stands for."""
PAGE_MAP_LOG2 = 16
"""log2 of the page map's entries: shadow pages at the same address modulo
2^(PAGE_MAP_LOG2 + SHADOW_PAGE_LOG2) bytes (256 MiB) share one. A launch's
first access to a shadow word marks its page's entry; after the launch the
host clears only the marked pages' shadow (a shared entry only clears more)."""
ALLOCATION_BIT = 1 << 31
"""Set in a whole program's region variable id: the id names an allocation (by
registration order), not a variable of the unit's table."""

U64, U32 = "unsigned long long", "unsigned int"
_CTYPES = {U64: ctypes.c_uint64, U32: ctypes.c_uint32}

REGION_FIELDS: list[tuple[str, str, str]] = [
    ("base", U64, "first byte of the monitored memory"),
    ("end", U64, "one past its last byte"),
    ("shadow", U64, "address of the shadow word of its unit 0"),
    ("gran_log2", U32, "log2 of the bytes per shadow unit"),
    ("var", U32, "variable id, for reports"),
]

COUNTER_FIELDS: list[tuple[str, str, str]] = [
    ("races", U64, "elements that entered RACE"),
    ("report_overflow", U64, "race records dropped because the report table was full"),
    ("untracked_clock", U64, "accesses not tracked: the thread's barrier clock overflowed"),
    ("clock_overflow_threads", U64, "threads whose barrier clock overflowed"),
    ("unmonitored", U64, "accesses to memory in no registered region, not the thread's own"),
    ("local", U64, "accesses to the accessing thread's own local memory (private: no race)"),
    ("unchecked_members", U64, "template member calls that reached an uninstrumented class"),
    ("out_of_bounds", U64, "accesses just outside a region (recorded when bounds is set)"),
    ("narrow", U64, "accesses narrower than their region's shadow unit"),
    ("partial_syncwarp", U64, "__syncwarp calls with a partial mask (not counted as barriers)"),
    ("fences", U64, "__threadfence* calls (message passing is modelled only in part)"),
    ("grid_syncs", U64, "grid syncs taken as block barriers (not a CPU cooperative launch)"),
    ("ordered_atomics", U64, "atomics with acquire or release order (modelled only in part)"),
    ("shared_table_full", U64, "__shared__ registrations dropped: thread table full"),
    ("shared_frame_full", U64, "__shared__ registrations dropped: past the block's frame"),
    ("skipped_blocks", U64, "accesses by blocks outside the monitored range"),
    ("release_overflow", U64, "release points not published: count or release table full"),
    ("acquire_overflow", U64, "acquired releases dropped: the acquired table was full"),
    ("logged", U64, "accesses to elements in RACE seen during a replay (may exceed log_cap)"),
]

RECORD_FIELDS: list[tuple[str, str, str]] = [
    ("key", U64, "(partner site + 1) << 32 | (site + 1); 0 marks a free slot"),
    ("unit", U64, "shadow unit index of the first racing element"),
    ("count", U32, "elements that raced with this pair of sites"),
    ("var", U32, "variable id of the first racing element"),
    ("tid", U32, "detecting thread (linear index in block)"),
    ("block", U32, "detecting block (linear index, low 32 bits)"),
    ("prev_tid", U32, "last accessor before the race (thread)"),
    ("prev_block", U32, "last accessor before the race (block, low 32 bits)"),
    ("prev_state", U32, "FSM state before the race"),
    ("flags", U32, "bit 0: the partner site is unknown (no site bits)"),
]

LOG_FIELDS: list[tuple[str, str, str]] = [
    ("word", U64, "address of the shadow word of the element"),
    ("block", U64, "accessing block (linear)"),
    ("site", U32, "access site"),
    ("action", U32, "R, W, BA, GA, BL or GL"),
    ("tid", U32, "accessing thread (linear index in block)"),
    ("bc", U32, "its block-barrier clock"),
    ("wc", U32, "its warp-barrier clock"),
    ("pad", U32, ""),
]

BOUNDS_FIELDS: list[tuple[str, str, str]] = [
    ("offset", U64, "byte offset from the region's base (two's complement: below it)"),
    ("block", U64, "accessing block (linear)"),
    ("site", U32, "access site"),
    ("var", U32, "variable id of the region"),
    ("tid", U32, "accessing thread (linear index in block)"),
    ("action", U32, "R, W, BA, GA, BL or GL"),
]

STATE_FIELDS: list[tuple[str, str, str]] = [
    ("regions", f"Region[{MAX_REGIONS}]", "registered global regions"),
    ("frames", U64, "device address of the per-block shared-memory shadow frames"),
    ("reports", U64, "device address of the RaceRecord table"),
    ("counters", U64, "device address of the Counters"),
    ("log", U64, "device address of the replay LogRecord buffer; 0 when not replaying"),
    ("log_cap", U64, "LogRecords the buffer holds"),
    (
        "bounds",
        U64,
        "device address of the BoundsRecord table; 0: out-of-bounds accesses are not recorded",
    ),
    ("bounds_cap", U64, "BoundsRecords the table holds"),
    ("block_lo", U64, "first monitored block (linear)"),
    ("block_hi", U64, "one past the last monitored block"),
    ("dyn_shared_bytes", U64, "dynamic shared memory of this launch"),
    ("frame_units", U64, "shadow words per block frame"),
    ("n_frames", U64, "frames allocated; fewer than blocks means frames are reused"),
    ("grid_epoch", U64, "CPU backend: grid barriers the shadow was cleared for (device-written)"),
    (
        "touched",
        U64,
        "CPU backend: address of one byte per region, set to 1 by an access that "
        "found the region; 0: not kept",
    ),
    (
        "pages",
        U64,
        "CPU backend: address of the page map (PAGE_MAP_LOG2), whose entry a launch's first "
        "access to a shadow word sets to 1; 0: none kept (the runtime marks a scratch map)",
    ),
    ("max_bc", U64, "largest trackable block-barrier clock"),
    ("max_wc", U64, "largest trackable warp-barrier clock"),
    ("max_rc", U64, "largest release count an access can carry (docs/semantics.md 1.6)"),
    ("tid_mask", U64, "the tid field's bits in place"),
    ("block_mask", U64, "the block field's bits in place"),
    ("tid_field", U64, "the tid field's mask before shifting"),
    ("wc_field", U64, "the wc field's mask before shifting"),
    ("site_field", U64, "the site field's mask before shifting (0 without site bits)"),
    ("enabled", U32, "0 disables all tracking"),
    (
        "bounds_continue",
        U32,
        "1: recorded out-of-bounds accesses are not performed (reads "
        "give 0); 0: they are performed, as in the original program",
    ),
    ("n_regions", U32, "regions in use"),
    ("report_cap", U32, "slots in the RaceRecord table (a power of two)"),
    ("dyn_gran_log2", U32, "log2 shadow unit of dynamic shared memory"),
    ("site_shift", U32, "shadow word layout: see hirace_py/shadow.py"),
    ("site_bits", U32, ""),
    ("tid_shift", U32, ""),
    ("tid_bits", U32, ""),
    ("block_shift", U32, ""),
    ("block_bits", U32, ""),
    ("rc_shift", U32, ""),
    ("rc_bits", U32, ""),
    ("wc_shift", U32, ""),
    ("wc_bits", U32, ""),
    ("bc_shift", U32, ""),
    ("bc_bits", U32, ""),
]


def _ctype(c_type: str) -> Any:
    if c_type.startswith("Region["):
        return Region * MAX_REGIONS
    return _CTYPES[c_type]


class Region(ctypes.Structure):
    _fields_ = [(n, _CTYPES[t]) for n, t, _ in REGION_FIELDS]


class Counters(ctypes.Structure):
    _fields_ = [(n, _CTYPES[t]) for n, t, _ in COUNTER_FIELDS]


class RaceRecord(ctypes.Structure):
    _fields_ = [(n, _CTYPES[t]) for n, t, _ in RECORD_FIELDS]


class LogRecord(ctypes.Structure):
    _fields_ = [(n, _CTYPES[t]) for n, t, _ in LOG_FIELDS]


class BoundsRecord(ctypes.Structure):
    _fields_ = [(n, _CTYPES[t]) for n, t, _ in BOUNDS_FIELDS]


class State(ctypes.Structure):
    _fields_ = [(n, _ctype(t)) for n, t, _ in STATE_FIELDS]


def cxx_fields(fields: list[tuple[str, str, str]]) -> list[dict[str, str]]:
    """Fields as the runtime template renders them: C++ declarations with comments."""
    out = []
    for name, c_type, doc in fields:
        if c_type.endswith("]"):
            base, count = c_type[:-1].split("[")
            decl = f"{base} {name}[{count}]"
        else:
            decl = f"{c_type} {name}"
        out.append({"decl": decl, "doc": doc})
    return out
