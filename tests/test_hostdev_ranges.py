"""RangeMap against a dict of bytes."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from hirace_py.hostdev.ranges import RangeMap

ops = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 12), st.sampled_from([None, 1, 2, 3]),
                         st.booleans()), max_size=25)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(ops, st.integers(0, 40), st.integers(0, 20))
def test_rangemap_is_a_map_of_bytes(program, qlo, qlen):
    m: RangeMap[int] = RangeMap()
    ref: dict[int, int] = {}
    for lo, n, v, add in program:
        if add and v is not None:
            m.update(lo, lo + n, lambda old, v=v: (old or 0) + v)
            for b in range(lo, lo + n):
                ref[b] = ref.get(b, 0) + v
        else:
            m.set(lo, lo + n, v)
            for b in range(lo, lo + n):
                if v is None:
                    ref.pop(b, None)
                else:
                    ref[b] = v
    got = {b: v for a, c, v in m.items(qlo, qlo + qlen) for b in range(a, c)}
    assert got == {b: v for b, v in ref.items() if qlo <= b < qlo + qlen}
    gaps = {b for a, c in m.gaps(qlo, qlo + qlen) for b in range(a, c)}
    assert gaps == {b for b in range(qlo, qlo + qlen) if b not in ref}
    runs = m.runs()
    assert all(a < b for a, b, _ in runs)
    assert all(r[1] <= s[0] for r, s in itertools.pairwise(runs))
    assert not any(r[1] == s[0] and r[2] == s[2] for r, s in itertools.pairwise(runs))


def test_adjacent_equal_runs_coalesce():
    m: RangeMap[str] = RangeMap()
    for b in range(0, 4000, 4):
        m.set(b, b + 4, "read")
    assert m.runs() == [(0, 4000, "read")]
