"""Event traces of one kernel launch: the grid, the event encoding and the text syntax.

A trace is a sequence of events in the order the shadow memory sees them:
memory actions by one thread on one location, block barriers (every thread
of one block takes part) and full-mask warp barriers (every lane of one warp).

Text syntax, used by ``hirace fsm --trace`` and in counterexamples::

    W 0.0.0 @x; bsync 0; R 0.1.0 @x; wsync 0.1; GA 1.0.3

* ``R|W|BA|GA B.W.L [@LOC]``: thread with block B, warp W (within the block)
  and lane L makes the access; LOC names the location (default ``@0``).
* ``bsync B``: block B passes a ``__syncthreads``.
* ``wsync B.W``: warp W of block B passes a full-mask ``__syncwarp``.
* Events are separated by ``;`` or newlines; ``#`` starts a comment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from hirace_py.fsm import Action

BSYNC = 4
"""Event op code of a block barrier; codes 0-3 are the `Action` values."""
WSYNC = 5
"""Event op code of a full-mask warp barrier."""


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

    def __str__(self) -> str:
        return f"{self.blocks}x{self.warps}x{self.lanes}"


@dataclass
class Trace:
    """Events as parallel arrays: op (0-3 action, 4 bsync, 5 wsync), who, loc.

    `who` is a dense thread id for accesses, a block id for bsync and a global
    warp id for wsync; `loc` is a location index for accesses and 0 otherwise.
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
        if op == WSYNC:
            return f"wsync {who // self.grid.warps}.{who % self.grid.warps}"
        b, w, lane = self.grid.coords(who)
        return f"{Action(op).name} {b}.{w}.{lane} @{self.locations[int(self.locs[i])]}"

    def format(self) -> str:
        return "; ".join(self.format_event(i) for i in range(len(self)))


class TraceSyntaxError(ValueError):
    """A malformed trace; the message names the event and what is wrong."""


_ACCESS = re.compile(r"^(R|W|BA|GA)\s+(\d+)\.(\d+)\.(\d+)(?:\s+@(\w+))?$")
_BSYNC = re.compile(r"^bsync\s+(\d+)$")
_WSYNC = re.compile(r"^wsync\s+(\d+)\.(\d+)$")


def _split_events(text: str) -> list[str]:
    events = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        events.extend(part.strip() for part in line.split(";") if part.strip())
    return events


def parse(text: str, grid: Grid | None = None) -> Trace:
    """Parse the text syntax. Without `grid`, the smallest grid holding every id is used.

    Raises TraceSyntaxError naming the offending event (1-based) on bad input,
    including ids outside an explicit grid.
    """
    parsed: list[tuple[str, tuple[int, ...], str]] = []
    for n, event in enumerate(_split_events(text), 1):
        if m := _ACCESS.match(event):
            ids = (int(m[2]), int(m[3]), int(m[4]))
            parsed.append((m[1], ids, m[5] or "0"))
        elif m := _BSYNC.match(event):
            parsed.append(("bsync", (int(m[1]),), ""))
        elif m := _WSYNC.match(event):
            parsed.append(("wsync", (int(m[1]), int(m[2])), ""))
        else:
            raise TraceSyntaxError(
                f"event {n} {event!r}: expected 'R|W|BA|GA B.W.L [@LOC]', 'bsync B' or 'wsync B.W'"
            )
    if not parsed:
        raise TraceSyntaxError("empty trace")
    if grid is None:
        dims = [1, 1, 1]
        for _, ids, _ in parsed:
            for d, v in enumerate(ids):
                dims[d] = max(dims[d], v + 1)
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
        elif kind == "wsync":
            ops.append(WSYNC)
            who.append(ids[0] * grid.warps + ids[1])
            locs.append(0)
        else:
            ops.append(int(Action[kind]))
            who.append(grid.thread(*ids))
            locs.append(names.setdefault(loc, len(names)))
    return Trace(
        grid,
        np.array(ops, np.int8),
        np.array(who, np.int32),
        np.array(locs, np.int32),
        list(names) or ["0"],
    )
