"""A map from byte addresses to values, held as sorted non-overlapping runs.

The model's memory state (validity, mirrors, last accesses) is kept per
byte but stored per run of bytes with one value, so its cost is in the
number of distinct ranges a program touches, not in bytes.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

V = TypeVar("V")


class RangeMap(Generic[V]):
    """Values over [lo, hi) byte ranges; addresses with no value are absent."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._runs: list[tuple[int, int, V]] = []

    def _split(self, at: int) -> None:
        i = bisect.bisect_right(self._starts, at) - 1
        if i >= 0:
            lo, hi, v = self._runs[i]
            if lo < at < hi:
                self._runs[i] = (lo, at, v)
                self._runs.insert(i + 1, (at, hi, v))
                self._starts.insert(i + 1, at)

    def _span(self, lo: int, hi: int) -> tuple[int, int]:
        """Indices [i, j) of the runs inside [lo, hi), after splitting at both ends."""
        self._split(lo)
        self._split(hi)
        i = bisect.bisect_left(self._starts, lo)
        j = bisect.bisect_left(self._starts, hi)
        return i, j

    def items(self, lo: int, hi: int) -> Iterator[tuple[int, int, V]]:
        """The runs with a value that overlap [lo, hi), clipped to it."""
        runs = self._runs
        for k in range(max(bisect.bisect_right(self._starts, lo) - 1, 0), len(runs)):
            a, b, v = runs[k]
            if a >= hi:
                break
            if b > lo:
                yield max(a, lo), min(b, hi), v

    def gaps(self, lo: int, hi: int) -> Iterator[tuple[int, int]]:
        """The sub-ranges of [lo, hi) with no value."""
        at = lo
        for a, b, _ in self.items(lo, hi):
            if a > at:
                yield at, a
            at = b
        if at < hi:
            yield at, hi

    def update(self, lo: int, hi: int, fn: Callable[[V | None], V | None]) -> None:
        """Replace the value v of every byte of [lo, hi) by fn(v) (None: no value)."""
        if lo >= hi:
            return
        if self._update_run(lo, hi, fn):
            return
        old = list(self.items(lo, hi))
        pieces: list[tuple[int, int, V | None]] = []
        at = lo
        for a, b, v in old:
            if a > at:
                pieces.append((at, a, None))
            pieces.append((a, b, v))
            at = b
        if at < hi:
            pieces.append((at, hi, None))
        i, j = self._span(lo, hi)
        new: list[tuple[int, int, V]] = []
        for a, b, v in pieces:
            w = fn(v)
            if w is not None:
                new.append((a, b, w))
        # Adjacent runs with equal values become one (loops touch byte after byte).
        if i > 0 and new and self._runs[i - 1][1:] == (new[0][0], new[0][2]):
            i -= 1
            new[0] = (self._runs[i][0], new[0][1], new[0][2])
        if (
            j < len(self._runs)
            and new
            and (new[-1][1], new[-1][2]) == (self._runs[j][0], self._runs[j][2])
        ):
            new[-1] = (new[-1][0], self._runs[j][1], new[-1][2])
            j += 1
        merged: list[tuple[int, int, V]] = []
        for run in new:
            if merged and merged[-1][1] == run[0] and merged[-1][2] == run[2]:
                merged[-1] = (merged[-1][0], run[1], run[2])
            else:
                merged.append(run)
        self._runs[i:j] = merged
        self._starts[i:j] = [a for a, _, _ in merged]

    def _update_run(self, lo: int, hi: int, fn: Callable[[V | None], V | None]) -> bool:
        """`update` where [lo, hi) is exactly one run (a program touching the same
        buffer again and again): done in place; False if it is not one run."""
        i = bisect.bisect_left(self._starts, lo)
        if i == len(self._runs) or self._runs[i][0] != lo or self._runs[i][1] != hi:
            return False
        v = self._runs[i][2]
        w = fn(v)
        if w is None:
            del self._runs[i], self._starts[i]
            return True
        if w == v:
            return True
        self._runs[i] = (lo, hi, w)
        # Equal neighbours become one run, as `update` leaves them.
        if i + 1 < len(self._runs) and self._runs[i + 1][0] == hi and self._runs[i + 1][2] == w:
            self._runs[i] = (lo, self._runs[i + 1][1], w)
            del self._runs[i + 1], self._starts[i + 1]
        if i > 0 and self._runs[i - 1][1] == lo and self._runs[i - 1][2] == w:
            self._runs[i - 1] = (self._runs[i - 1][0], self._runs[i][1], w)
            del self._runs[i], self._starts[i]
        return True

    def set(self, lo: int, hi: int, value: V | None) -> None:
        self.update(lo, hi, lambda _: value)

    def runs(self) -> list[tuple[int, int, V]]:
        return list(self._runs)
