"""Shadow word packing: exact round trips, exact identities, no silent truncation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hirace_py import fsm
from hirace_py.shadow import (
    MAX_THREADS_PER_BLOCK,
    ShadowLayout,
    ShadowLimitError,
    bits_for,
)


@st.composite
def layouts_and_words(draw: st.DrawFn) -> tuple[ShadowLayout, tuple[int, ...]]:
    threads = draw(st.integers(1, MAX_THREADS_PER_BLOCK))
    blocks = draw(st.integers(1, 2**31 - 1))
    sites = draw(st.integers(1, 5000))
    layout = ShadowLayout.for_launch(threads, blocks, sites)
    values = (
        draw(st.integers(0, fsm.N_STATES - 1)),
        draw(st.integers(0, sites - 1)) if layout.records_sites else 0,
        draw(st.integers(0, threads - 1)),
        draw(st.integers(0, blocks - 1)),
        draw(st.integers(0, layout.max_wc)),
        draw(st.integers(0, layout.max_bc)),
        draw(st.integers(0, layout.max_rc)),
    )
    return layout, values


@given(layouts_and_words())
def test_pack_unpack_round_trip(case: tuple[ShadowLayout, tuple[int, ...]]) -> None:
    layout, values = case
    word = layout.pack(*values)
    assert 0 <= word < 2**64
    assert tuple(layout.unpack(word)) == values


def test_fields_tile_the_word_without_overlap() -> None:
    layout = ShadowLayout.for_launch(256, 1024, 64)
    used = 0
    for f in layout.fields():
        mask = f.mask << f.shift
        assert used & mask == 0
        used |= mask
    assert used == 2**64 - 1


def test_zero_word_is_init() -> None:
    assert ShadowLayout.for_launch(32, 1).unpack(0).state == fsm.INIT


def test_largest_1d_grid_and_block_keep_exact_identities() -> None:
    layout = ShadowLayout.for_launch(1024, 2**31 - 1, 300)
    a = layout.pack(fsm.RACE, 0, 1023, 2**31 - 2, 0, 0)
    b = layout.pack(fsm.RACE, 0, 1023, 2**31 - 3, 0, 0)
    c = layout.pack(fsm.RACE, 0, 1022, 2**31 - 2, 0, 0)
    assert len({a, b, c}) == 3
    assert layout.unpack(a).block == 2**31 - 2 and layout.unpack(a).tid == 1023
    # The clocks keep what is left; sites give way first.
    assert not layout.records_sites
    assert layout.bc_bits + layout.wc_bits == 64 - 5 - 10 - 31


def test_values_that_do_not_fit_raise_instead_of_truncating() -> None:
    layout = ShadowLayout.for_launch(256, 1024, 64)
    with pytest.raises(ValueError, match="tid"):
        layout.pack(0, 0, 256, 0, 0, 0)
    with pytest.raises(ValueError, match="block"):
        layout.pack(0, 0, 0, 1024, 0, 0)
    with pytest.raises(ValueError, match="bc"):
        layout.pack(0, 0, 0, 0, 0, layout.max_bc + 1)
    with pytest.raises(ValueError, match="state"):
        layout.pack(32, 0, 0, 0, 0, 0)


def test_clock_overflow_bound_and_forced_narrow_clocks() -> None:
    layout = ShadowLayout.for_launch(64, 1, 8, clock_bits=16)
    assert layout.max_bc == 2**16 - 1
    layout.pack(fsm.INIT, 0, 0, 0, 0, 2**16 - 1)
    with pytest.raises(ValueError):
        layout.pack(fsm.INIT, 0, 0, 0, 0, 2**16)
    # Without a cap, a 64-thread single-block launch counts well past 2^16 barriers.
    assert ShadowLayout.for_launch(64, 1, 8).max_bc > 70_000


def test_grids_too_large_for_exact_identities_are_refused() -> None:
    with pytest.raises(ShadowLimitError, match="not tracked"):
        ShadowLayout.for_launch(1024, (2**31 - 1) * 65535 * 65535)
    with pytest.raises(ShadowLimitError):
        ShadowLayout.for_launch(1025, 1)


def test_release_counts_take_only_what_the_clocks_spare() -> None:
    # 256 threads, 1024 blocks, 1000 sites: 64 - 5 - 10 - 8 - 10 = 31 bits
    # for the clocks and rc, 7 more than two 12-bit clocks need.
    layout = ShadowLayout.for_launch(256, 1024, 1000)
    assert layout.rc_bits == 7 and layout.bc_bits + layout.wc_bits == 24
    layout.pack(fsm.INIT, 0, 0, 0, 0, 0, rc=127)
    with pytest.raises(ValueError, match="rc"):
        layout.pack(fsm.INIT, 0, 0, 0, 0, 0, rc=128)
    assert ShadowLayout.for_launch(64, 1, 8).rc_bits == 8
    assert ShadowLayout.for_launch(1024, 2**31 - 1, 300).rc_bits == 0


def test_sites_dropped_only_when_clocks_would_be_too_narrow() -> None:
    assert ShadowLayout.for_launch(256, 1024, 1000).site_bits == bits_for(1000)
    assert ShadowLayout.for_launch(1024, 2**31 - 1, 1000).site_bits == 0


def test_bits_for() -> None:
    assert [bits_for(n) for n in (1, 2, 3, 4, 5, 1024, 1025)] == [0, 1, 2, 2, 3, 10, 11]
    with pytest.raises(ValueError):
        bits_for(0)
