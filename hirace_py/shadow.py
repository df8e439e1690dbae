"""The 64-bit shadow word: its fields, their widths, and the limits policy.

One shadow word per monitored element holds, from bit 0 upward:

=========  ======================  =================================================
field      width                   holds
=========  ======================  =================================================
state      5 (`fsm.STATE_BITS`)    FSM state; 0 is INIT, so zeroed shadow is fresh
site       0 .. bits(sites)        access site id of the last access (for reports)
tid        bits(threads/block)     last accessor's linear thread index in its block
block      bits(blocks in grid)    last accessor's linear block index
rc         0 .. RELEASE_BITS       release points the last accessor had passed
wc         the rest, halved        warp barriers the last accessor had passed
bc         the rest, halved (+1)   block barriers the last accessor had passed
=========  ======================  =================================================

The widths are chosen per launch (`ShadowLayout.for_launch`), so identities
are always exact: a 1024-thread block needs 10 bits and a grid of 2^31-1
blocks 31, leaving 18 bits for the clocks even then. No field is ever
truncated: `pack` raises on any value that does not fit.

Limits policy (docs/semantics.md section 3):

* Identities: the thread and block fields are exact for every launch whose
  5 + bits(threads) + bits(blocks) + 2 * MIN_CLOCK_BITS <= 64, i.e. up to 2^41
  blocks of 1024 threads (CUDA's 1-D limit is 2^31-1; only 3-D grids go
  further). Larger grids raise `ShadowLimitError`: the launch is not tracked,
  and the caller reports that.
* Sites: the site field gets bits(sites) bits only if each clock keeps at
  least SITE_CLOCK_BITS bits afterwards; otherwise it is 0 bits wide, and
  reports name the partner access's thread and block but not its site.
* Release counts: the rc field takes at most RELEASE_BITS bits, and only
  bits the clocks can spare above SITE_CLOCK_BITS each (0 for the largest
  grids). A thread counts its release points (docs/semantics.md 1.6) up to
  `max_rc`; a release point past that publishes nothing (counted as
  `release_overflow`), so messages it would have passed are reported as
  races, never the reverse.
* Clocks: a thread whose block-barrier count exceeds `max_bc`, or whose
  warp-barrier count exceeds `max_wc`, stops being tracked from that barrier
  on: its later accesses do not touch shadow and are counted as untracked,
  and the launch reports a clock-overflow warning with that count. Races
  among tracked accesses are still exact; none is ever reported falsely.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from hirace_py.fsm import STATE_BITS

WORD_BITS = 64
MIN_CLOCK_BITS = 4
"""Narrowest clock field a layout may have; below this a launch is not tracked."""
SITE_CLOCK_BITS = 12
"""Site ids are recorded only if each clock keeps at least this many bits."""
RELEASE_BITS = 8
"""Widest release-count field; it takes only what the clocks spare above SITE_CLOCK_BITS."""
MAX_THREADS_PER_BLOCK = 1024
MAX_GRAN_LOG2 = 3
"""log2 of the widest shadow unit: one word covers at most an 8-byte scalar.
A variable's unit is log2 of its smallest scalar's size, at most this
(instrument.analyze.gran_log2 from the parse's types; the host runtime's
scalar_gran for the pointee types only an instantiation knows)."""
FIELD_ORDER = ("state", "site", "tid", "block", "rc", "wc", "bc")


class ShadowLimitError(ValueError):
    """A launch whose identities cannot be packed exactly into one word."""


def bits_for(count: int) -> int:
    """Bits needed to store every value in range(count)."""
    if count < 1:
        raise ValueError(f"count must be positive, got {count}")
    return (count - 1).bit_length()


class ShadowWord(NamedTuple):
    """The decoded fields of a shadow word."""

    state: int
    site: int
    tid: int
    block: int
    wc: int
    bc: int
    rc: int = 0


@dataclass(frozen=True)
class Field:
    """One bit field of the word."""

    name: str
    shift: int
    width: int

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1


@dataclass(frozen=True)
class ShadowLayout:
    """Field widths for one launch; see the module docstring for the policy."""

    site_bits: int
    tid_bits: int
    block_bits: int
    wc_bits: int
    bc_bits: int
    rc_bits: int = 0

    def __post_init__(self) -> None:
        total = STATE_BITS + sum(self.widths()[1:])
        if total > WORD_BITS:
            raise ShadowLimitError(f"layout needs {total} bits, the word has {WORD_BITS}")
        if min(self.bc_bits, self.wc_bits) < MIN_CLOCK_BITS:
            raise ShadowLimitError(
                f"clock fields of {self.bc_bits}/{self.wc_bits} bits are narrower "
                f"than the minimum of {MIN_CLOCK_BITS}"
            )

    @classmethod
    def for_launch(
        cls,
        threads_per_block: int,
        blocks: int,
        sites: int = 1,
        clock_bits: int | None = None,
    ) -> ShadowLayout:
        """The layout for a launch of `blocks` x `threads_per_block` with `sites` sites.

        `clock_bits` caps each clock's width (tests use it to force overflow).
        Raises ShadowLimitError when the identities cannot be exact.
        """
        if not 1 <= threads_per_block <= MAX_THREADS_PER_BLOCK:
            raise ShadowLimitError(
                f"{threads_per_block} threads per block; CUDA allows 1 to {MAX_THREADS_PER_BLOCK}"
            )
        tid, block = bits_for(threads_per_block), bits_for(blocks)
        rest = WORD_BITS - STATE_BITS - tid - block
        if rest < 2 * MIN_CLOCK_BITS:
            raise ShadowLimitError(
                f"a grid of {blocks} blocks of {threads_per_block} threads leaves "
                f"{rest} bits for barrier clocks, fewer than {2 * MIN_CLOCK_BITS}: "
                "block and thread ids cannot be kept exact, so the launch is not tracked"
            )
        site = bits_for(sites)
        if rest - site < 2 * SITE_CLOCK_BITS:
            site = 0
        clocks = rest - site
        rc = min(RELEASE_BITS, max(0, clocks - 2 * SITE_CLOCK_BITS))
        clocks -= rc
        bc, wc = (clocks + 1) // 2, clocks // 2
        if clock_bits is not None:
            bc, wc = min(bc, clock_bits), min(wc, clock_bits)
        return cls(site, tid, block, wc, bc, rc)

    def widths(self) -> tuple[int, ...]:
        return (
            STATE_BITS,
            self.site_bits,
            self.tid_bits,
            self.block_bits,
            self.rc_bits,
            self.wc_bits,
            self.bc_bits,
        )

    def fields(self) -> tuple[Field, ...]:
        """The fields in FIELD_ORDER with their shifts."""
        out, shift = [], 0
        for name, width in zip(FIELD_ORDER, self.widths(), strict=True):
            out.append(Field(name, shift, width))
            shift += width
        return tuple(out)

    @property
    def max_bc(self) -> int:
        """Largest block-barrier count a thread may have and still be tracked."""
        return (1 << self.bc_bits) - 1

    @property
    def max_wc(self) -> int:
        """Largest warp-barrier count a thread may have and still be tracked."""
        return (1 << self.wc_bits) - 1

    @property
    def max_rc(self) -> int:
        """Largest release count a thread's accesses can carry."""
        return (1 << self.rc_bits) - 1

    @property
    def records_sites(self) -> bool:
        return self.site_bits > 0

    def pack(self, state: int, site: int, tid: int, block: int, wc: int, bc: int,
             rc: int = 0) -> int:  # fmt: skip
        """The word holding these fields; ValueError if any does not fit its width."""
        word = 0
        values = (state, site if self.site_bits else 0, tid, block, rc, wc, bc)
        for f, value in zip(self.fields(), values, strict=True):
            if not 0 <= value <= f.mask:
                raise ValueError(f"shadow field {f.name}={value} does not fit {f.width} bits")
            word |= value << f.shift
        return word

    def unpack(self, word: int) -> ShadowWord:
        """The fields of a word produced by `pack`."""
        if not 0 <= word < 1 << WORD_BITS:
            raise ValueError(f"shadow word {word:#x} is not a 64-bit unsigned value")
        v = {f.name: (word >> f.shift) & f.mask for f in self.fields()}
        return ShadowWord(**v)
