"""Structural properties of the derived transition table."""

from __future__ import annotations

import numpy as np
import pytest

from hirace_py import fsm
from hirace_py.fsm import Action, Rel, Sync


def test_shape_dtype_and_read_only() -> None:
    t = fsm.TRANSITIONS
    assert t.shape == (fsm.N_STATES, len(fsm.Action), 4, 4)
    assert t.dtype == np.uint8
    assert fsm.N_STATES <= 32
    with pytest.raises(ValueError):
        t[0, 0, 0, 0] = 1


def test_state_names_unique_and_special_states() -> None:
    assert len(set(fsm.STATES)) == fsm.N_STATES
    assert fsm.STATES[fsm.INIT] == "INIT" and fsm.STATES[fsm.RACE] == "RACE"
    assert all(m.strip() for m in fsm.MEANINGS)


def test_race_is_absorbing_and_init_ignores_sync_and_relation() -> None:
    assert (fsm.TRANSITIONS[fsm.RACE] == fsm.RACE).all()
    for a in Action:
        row = fsm.TRANSITIONS[fsm.INIT, a]
        assert (row == row[0, 0]).all()
        assert row[0, 0] not in (fsm.INIT, fsm.RACE)


def test_syncs_that_cannot_order_are_ignored() -> None:
    t = fsm.TRANSITIONS
    # No block or warp barrier orders accesses of different blocks.
    assert (t[:, :, : Sync.G, Rel.G] == t[:, :, Sync.U : Sync.U + 1, Rel.G]).all()


def test_grid_barrier_starts_the_history_over() -> None:
    t = fsm.TRANSITIONS
    fresh = t[fsm.INIT, :, Sync.U, Rel.S]
    for s in range(fsm.N_STATES):
        for r in Rel:
            expected = fresh if s != fsm.RACE else np.full(len(fsm.Action), fsm.RACE)
            assert (t[s, :, Sync.G, r] == expected).all(), fsm.STATES[s]
    # A warp barrier does not order accesses of different warps.
    assert (t[:, :, Sync.W, Rel.B] == t[:, :, Sync.U, Rel.B]).all()


def test_every_state_reachable_and_can_race() -> None:
    reach = {fsm.INIT}
    frontier = [fsm.INIT]
    while frontier:
        s = frontier.pop()
        for t in np.unique(fsm.TRANSITIONS[s]):
            if int(t) not in reach:
                reach.add(int(t))
                frontier.append(int(t))
    assert reach == set(range(fsm.N_STATES))
    for s in range(fsm.N_STATES):
        if s != fsm.INIT:
            assert (fsm.TRANSITIONS[s] == fsm.RACE).any(), fsm.STATES[s]


def test_minimal_no_two_states_equivalent() -> None:
    assert len(set(fsm._equivalence_classes(fsm._TABLE, fsm.RACE))) == fsm.N_STATES


def test_flat_index_matches_table() -> None:
    for s in range(fsm.N_STATES):
        for a in Action:
            for y in Sync:
                for r in Rel:
                    want = fsm.TRANSITIONS[s, a, y, r]
                    assert fsm.FLAT_TRANSITIONS[fsm.flat_index(s, a, y, r)] == want
                    assert fsm.step(s, a, y, r) == want


def test_state_index_errors_name_valid_states() -> None:
    assert fsm.state_index("RACE") == fsm.RACE
    with pytest.raises(ValueError, match="INIT"):
        fsm.state_index("NOPE")
