"""Event traces of one kernel launch: the grid, the event encoding and the text syntax.

A trace is a sequence of events in the order the shadow memory sees them
(docs/semantics.md section 1.7): memory actions by one thread on one
location, fences by one thread, and barriers: block barriers (every thread of
one block takes part), warp barriers (the lanes of one warp in a mask), and
grid barriers (every thread).

Text syntax, used by ``hirace fsm --trace`` and in counterexamples::

    W 0.0.0 @x; bsync 0; R 0.1.0 @x; wsync 0.1; GA 1.0.3; wsync 1.0 0x3; gsync

* ``R|W|BA|GA|BL|GL B.W.L [@LOC]``: thread with block B, warp W (within the
  block) and lane L makes the access; LOC names the location (default
  ``@0``). ``BA``/``GA`` are atomic read-modify-writes (or stores) of block
  and device scope, ``BL``/``GL`` atomic loads of block and device scope.
  An atomic may carry a memory order: ``BA.acq``, ``GA.rel``, ``GA.ar``
  (acquire and release); without one it is relaxed. A load only acquires
  (``GL.acq``).
* ``fence B.W.L`` / ``fence.b B.W.L``: that thread's device-scope
  (``__threadfence``) or block-scope (``__threadfence_block``) fence.
* ``bsync B``: block B passes a ``__syncthreads``.
* ``wsync B.W [MASK]``: the lanes of warp W of block B named in MASK (hex
  ``0x..`` or decimal; all lanes when omitted) pass a ``__syncwarp(MASK)``.
* ``gsync``: every thread passes a grid barrier (``this_grid().sync()``).
* Events are separated by ``;`` or newlines; ``#`` starts a comment.

Encoding: an access is op ``order * 8 + action`` (below `BSYNC`), with
order 0 relaxed, 1 acquire, 2 release, 3 both; barrier and fence codes
start at `BSYNC`. A warp barrier keeps its lane mask in `locs` (0: all lanes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from hirace_py.fsm import Action

ACQUIRE = 1
"""Order bit of an atomic access: acquire (op = order * 8 + action)."""
RELEASE = 2
"""Order bit of an atomic access: release."""
ORDER_NAMES = {ACQUIRE: "acq", RELEASE: "rel", ACQUIRE | RELEASE: "ar"}

ACTION_BITS = 3
"""Low bits of an access op code that hold its `Action`."""

BSYNC = 32
"""Event op code of a block barrier; codes below it are accesses."""
WSYNC = 33
"""Event op code of a warp barrier (mask in `locs`, 0 for all lanes)."""
GSYNC = 34
"""Event op code of a grid barrier."""
FENCE = 35
"""Event op code of a device-scope fence by one thread."""
FENCE_BLOCK = 36
"""Event op code of a block-scope fence by one thread."""


def action_of(op: np.ndarray | int) -> np.ndarray | int:
    """The `Action` value of access op codes."""
    return op & ((1 << ACTION_BITS) - 1)


def order_of(op: np.ndarray | int) -> np.ndarray | int:
    """The memory-order bits (ACQUIRE, RELEASE) of access op codes."""
    return op >> ACTION_BITS


@dataclass(frozen=True)
class Grid:
    """A launch shape for traces: blocks, warps per block, lanes per warp.

    Thread ids are dense: ``t = (block * warps + warp) * lanes + lane``; warp
    ids are global: ``block * warps + warp``.
    """

    blocks: int
    warps: int
    lanes: int

    def __post_init__(self) -> None:
        if min(self.blocks, self.warps, self.lanes) < 1:
            raise ValueError(f"grid dimensions must be positive, got {self}")

    @property
    def threads(self) -> int:
        return self.blocks * self.warps * self.lanes

    def thread(self, block: int, warp: int, lane: int) -> int:
        return (block * self.warps + warp) * self.lanes + lane

    def coords(self, thread: int) -> tuple[int, int, int]:
        """(block, warp within block, lane) of a dense thread id."""
        lane = thread % self.lanes
        warp = (thread // self.lanes) % self.warps
        return thread // (self.lanes * self.warps), warp, lane

    def block_of(self) -> np.ndarray:
        """Block id of every thread."""
        return np.arange(self.threads) // (self.warps * self.lanes)

    def warp_of(self) -> np.ndarray:
        """Global warp id of every thread."""
        return np.arange(self.threads) // self.lanes

    def lane_of(self) -> np.ndarray:
        """Lane of every thread within its warp."""
        return np.arange(self.threads) % self.lanes

    @property
    def full_mask(self) -> int:
        """The lane mask naming every lane of a warp."""
        return (1 << self.lanes) - 1

    def __str__(self) -> str:
        return f"{self.blocks}x{self.warps}x{self.lanes}"


@dataclass
class Trace:
    """Events as parallel arrays: op (see the module docstring), who, loc.

    `who` is a dense thread id for accesses and fences, a block id for bsync,
    a global warp id for wsync and 0 for gsync; `loc` is a location index for
    accesses, the lane mask for wsync (0: all lanes) and 0 otherwise.
    `locations` names the location indices.
    """

    grid: Grid
    ops: np.ndarray
    who: np.ndarray
    locs: np.ndarray
    locations: list[str] = field(default_factory=lambda: ["0"])

    def __len__(self) -> int:
        return len(self.ops)

    def format_event(self, i: int) -> str:
        """Event i in the text syntax."""
        op, who = int(self.ops[i]), int(self.who[i])
        if op == BSYNC:
            return f"bsync {who}"
        if op == GSYNC:
            return "gsync"
        if op == WSYNC:
            mask = int(self.locs[i])
            tail = f" {mask:#x}" if mask and mask != self.grid.full_mask else ""
            return f"wsync {who // self.grid.warps}.{who % self.grid.warps}{tail}"
        b, w, lane = self.grid.coords(who)
        if op in (FENCE, FENCE_BLOCK):
            return f"fence{'.b' if op == FENCE_BLOCK else ''} {b}.{w}.{lane}"
        name = Action(int(action_of(op))).name
        if order_of(op):
            name += "." + ORDER_NAMES[int(order_of(op))]
        return f"{name} {b}.{w}.{lane} @{self.locations[int(self.locs[i])]}"

    def format(self) -> str:
        return "; ".join(self.format_event(i) for i in range(len(self)))


class TraceSyntaxError(ValueError):
    """A malformed trace; the message names the event and what is wrong."""


_ACCESS = re.compile(r"^(R|W|BA|GA|BL|GL)(?:\.(acq|rel|ar))?\s+(\d+)\.(\d+)\.(\d+)(?:\s+@(\w+))?$")
_FENCE = re.compile(r"^fence(\.b)?\s+(\d+)\.(\d+)\.(\d+)$")
_BSYNC = re.compile(r"^bsync\s+(\d+)$")
_WSYNC = re.compile(r"^wsync\s+(\d+)\.(\d+)(?:\s+(0x[0-9a-fA-F]+|\d+))?$")
_GSYNC = re.compile(r"^gsync$")
_ORDERS = {name: bits for bits, name in ORDER_NAMES.items()}
_EXPECTED = (
    "expected 'R|W|BA|GA|BL|GL[.acq|.rel|.ar] B.W.L [@LOC]', 'fence[.b] B.W.L', "
    "'bsync B', 'wsync B.W [MASK]' or 'gsync'"
)


def _split_events(text: str) -> list[str]:
    events = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        events.extend(part.strip() for part in line.split(";") if part.strip())
    return events


def parse(text: str, grid: Grid | None = None) -> Trace:
    """Parse the text syntax. Without `grid`, the smallest grid holding every id is used.

    Raises TraceSyntaxError naming the offending event (1-based) on bad input,
    including ids outside an explicit grid, an order on a plain access, and
    an empty or too wide warp-barrier mask.
    """
    parsed: list[tuple[str, tuple[int, ...], str]] = []
    for n, event in enumerate(_split_events(text), 1):
        if m := _ACCESS.match(event):
            if m[2] and m[1] in ("R", "W"):
                raise TraceSyntaxError(f"event {n} {event!r}: only atomics have a memory order")
            if m[2] in ("rel", "ar") and m[1] in ("BL", "GL"):
                raise TraceSyntaxError(f"event {n} {event!r}: an atomic load cannot release")
            ids = (int(m[3]), int(m[4]), int(m[5]))
            parsed.append((m[1] + ("." + m[2] if m[2] else ""), ids, m[6] or "0"))
        elif m := _FENCE.match(event):
            parsed.append(("fence.b" if m[1] else "fence", (int(m[2]), int(m[3]), int(m[4])), ""))
        elif m := _BSYNC.match(event):
            parsed.append(("bsync", (int(m[1]),), ""))
        elif m := _WSYNC.match(event):
            parsed.append(("wsync", (int(m[1]), int(m[2])), m[3] or ""))
        elif _GSYNC.match(event):
            parsed.append(("gsync", (), ""))
        else:
            raise TraceSyntaxError(f"event {n} {event!r}: {_EXPECTED}")
    if not parsed:
        raise TraceSyntaxError("empty trace")
    if grid is None:
        dims = [1, 1, 1]
        for kind, ids, mask in parsed:
            for d, v in enumerate(ids):
                dims[d] = max(dims[d], v + 1)
            if kind == "wsync" and mask:
                dims[2] = max(dims[2], int(mask, 0).bit_length())
        grid = Grid(*dims)
    limits = (grid.blocks, grid.warps, grid.lanes)
    names: dict[str, int] = {}
    ops, who, locs = [], [], []
    for n, (kind, ids, loc) in enumerate(parsed, 1):
        for d, v in enumerate(ids):
            if v >= limits[d]:
                what = ("block", "warp", "lane")[d]
                raise TraceSyntaxError(f"event {n}: {what} {v} outside grid {grid}")
        if kind == "bsync":
            ops.append(BSYNC)
            who.append(ids[0])
            locs.append(0)
        elif kind == "gsync":
            ops.append(GSYNC)
            who.append(0)
            locs.append(0)
        elif kind == "wsync":
            mask = int(loc, 0) if loc else 0
            if loc and not 0 < mask <= grid.full_mask:
                raise TraceSyntaxError(
                    f"event {n}: mask {loc} names no lane or lanes outside a warp of {grid.lanes}"
                )
            ops.append(WSYNC)
            who.append(ids[0] * grid.warps + ids[1])
            locs.append(0 if mask == grid.full_mask else mask)
        elif kind.startswith("fence"):
            ops.append(FENCE_BLOCK if kind == "fence.b" else FENCE)
            who.append(grid.thread(*ids))
            locs.append(0)
        else:
            action, _, order = kind.partition(".")
            ops.append(int(Action[action]) + ((_ORDERS[order] if order else 0) << ACTION_BITS))
            who.append(grid.thread(*ids))
            locs.append(names.setdefault(loc, len(names)))
    return Trace(
        grid,
        np.array(ops, np.int8),
        np.array(who, np.int32),
        np.array(locs, np.int32),
        list(names) or ["0"],
    )
