"""Memory shared with launch processes, guarded for bounds checking.

A `GuardedMap` is one anonymous MAP_SHARED mapping holding one or more
buffers. Each buffer's end abuts a PROT_NONE guard page, and a guard page also
precedes the first one, so an access past the end of a buffer (or well before
its start) faults in the launch's child process, which reports the address.
MAP_SHARED makes the child's writes visible to this process without copying.

`shared_array` gives users such memory directly: a kernel argument that lives
in one is used in place, and a `__device__` pointer may point into one.
"""

from __future__ import annotations

import ctypes
import mmap
import weakref
from dataclasses import dataclass

import numpy as np
from numpy.typing import DTypeLike

PAGE = mmap.PAGESIZE
_PROT_NONE = 0

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.mprotect.restype = ctypes.c_int


def _round_up(n: int, to: int) -> int:
    return (n + to - 1) // to * to


@dataclass(frozen=True)
class Buffer:
    """One buffer of a GuardedMap: data at [start, end); guard pages around."""

    start: int
    end: int
    low: int  # lowest address whose fault counts as "before the start"

    def after_end(self, address: int) -> bool:
        """Whether a fault at `address` is on the guard page after the data."""
        return self.end <= address < self.end + PAGE

    def before_start(self, address: int) -> bool:
        """Whether a fault at `address` is below the data, on the guard page
        under it (which may also be the previous buffer's trailing guard)."""
        return self.low <= address < self.start


class GuardedMap(mmap.mmap):
    """A MAP_SHARED mapping of buffers, each followed by a guard page.

    A subclass of mmap so that NumPy arrays made from it keep it alive and
    `contains` finds the map of any such array.
    """

    buffers: list[Buffer]
    address: int

    @classmethod
    def create(cls, sizes: list[int]) -> GuardedMap:
        spans = [_round_up(max(size, 0), PAGE) for size in sizes]
        total = PAGE + sum(span + PAGE for span in spans)
        mapping = cls(-1, total)
        holder = ctypes.c_char.from_buffer(mapping)
        mapping.address = ctypes.addressof(holder)
        del holder
        mapping.buffers = []
        offset = PAGE
        mapping._protect(0)
        for size, span in zip(sizes, spans, strict=True):
            end = mapping.address + offset + span
            mapping.buffers.append(Buffer(end - size, end, mapping.address + offset - PAGE))
            offset += span
            mapping._protect(offset)
            offset += PAGE
        _LIVE.add(mapping)
        return mapping

    def _protect(self, offset: int) -> None:
        if _libc.mprotect(self.address + offset, PAGE, _PROT_NONE) != 0:
            raise OSError(ctypes.get_errno(), "mprotect of a guard page failed")

    def array(self, index: int, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
        """A NumPy view of buffer `index`."""
        buf = self.buffers[index]
        count = (buf.end - buf.start) // dtype.itemsize if dtype.itemsize else 0
        flat = np.frombuffer(self, dtype=dtype, count=count, offset=buf.start - self.address)
        return flat.reshape(shape)


_LIVE: weakref.WeakSet[GuardedMap] = weakref.WeakSet()


def owning_buffer(address: int, nbytes: int) -> tuple[GuardedMap, Buffer] | None:
    """The live guarded buffer that holds [address, address + nbytes), if any."""
    for mapping in list(_LIVE):
        for buf in mapping.buffers:
            if buf.start <= address and address + nbytes <= buf.end:
                return mapping, buf
    return None


def shared_array(shape: int | tuple[int, ...], dtype: DTypeLike = np.float64) -> np.ndarray:
    """A zero-filled array in MAP_SHARED memory, its end on a guard page.

    Passed as a kernel argument it is used in place (no copy), and writes made
    by the launch's child process are visible here; its address is the same in
    the child, so a `__device__` pointer may point into it.
    """
    dt = np.dtype(dtype)
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(not isinstance(d, int | np.integer) or d < 0 for d in dims):
        raise ValueError(f"shape must be non-negative ints, got {shape!r}")
    nbytes = int(np.prod(dims, dtype=np.int64)) * dt.itemsize
    mapping = GuardedMap.create([nbytes])
    return mapping.array(0, dt, tuple(int(d) for d in dims))
