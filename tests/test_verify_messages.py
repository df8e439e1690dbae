"""`hirace verify --messages`: the runtime's message passing against happens-before.

The model (templates/fsm_messages.m.j2, docs/fsm.md "Murphi model of message
passing") runs the transition table with the CPU runtime's message check on a
data location @d and a flag @f. It must pass on the real table, and each
fault of the message check it can be rendered with must fail with a
counterexample that the oracle (hirace_py.oracle) confirms: a lost message
is a false alarm on a race-free trace, a release that covers too much hides
a race. These tests run Rumur and a C compiler, like tests/test_verify.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hirace_py import fsm, oracle
from hirace_py.cli import main
from hirace_py.murphi import messages, rumur
from hirace_py.trace import BSYNC, Grid, parse
from tests.test_murphi import _table_in

TIMEOUT = 600.0


def test_message_model_carries_the_table_and_the_runtime_constants() -> None:
    text = messages.render(Grid(3, 1, 1))
    assert (_table_in(text) == fsm.FLAT_TRANSITIONS).all()
    for s in fsm.ORDERED_BEFORE_LAST:
        assert f"s = {fsm.STATES[s]}" in text
    assert f"return race ? {fsm.STATES[fsm.MESSAGE_STATE]} : next_state(" in text
    for s in fsm.MESSAGE_READERS:
        assert f"s = {fsm.STATES[s]} |" in text or f"s = {fsm.STATES[s]};" in text
    for name, *_ in messages.FLAG_RULES:
        assert f'rule "{name}"' in text
    assert "MAX_FLAG_OPS: 3;" in text and "MAX_DATA: 3;" in text


def test_unknown_mutant_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown mutant 'x'"):
        messages.render(Grid(2, 1, 1), mutant="x")


def test_verify_messages_passes_on_the_real_table(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["verify", "--messages", "--grid", "3x1x1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.startswith("model: message passing, grid 3x1x1 ")
    assert "verdict: verified" in out


@pytest.mark.slow
def test_verify_messages_passes_on_the_default_grids(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["verify", "--messages"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.count("verdict: verified") == len(messages.DEFAULT_GRIDS)


@pytest.mark.slow
@pytest.mark.parametrize(("grid", "bounds"), [(Grid(2, 1, 2), (2, 2)), (Grid(1, 1, 2), (4, 2))])
def test_the_runtime_passes_where_its_old_false_alarms_show(
    tmp_path: Path, grid: Grid, bounds: tuple[int, int]
) -> None:
    # The grids and bounds on which the mutants release_ignores_warp_barriers,
    # acquire_ignores_warp_barriers and read_unasked fail (below); the
    # default grids cannot show those faults (a warp barrier needs a lane
    # beside the releaser or acquirer and a thread outside its warp; the
    # read needs four accesses of @d).
    max_data, max_flag_ops = bounds
    text = messages.render(grid, max_data=max_data, max_flag_ops=max_flag_ops)
    outcome = rumur.check(text, tmp_path, TIMEOUT)
    assert outcome.failed is None and outcome.states > 0


@pytest.mark.parametrize(
    ("mutant", "grid", "bounds", "invariant", "racy"),
    [
        # A race-free message (W; release; acquire; access) reported.
        ("acquire_orders_nothing", Grid(2, 1, 1), (3, 3), "soundness", False),
        ("cross_block_lost", Grid(2, 1, 1), (3, 3), "soundness", False),
        # A release by a thread that never ordered the access: the race hidden.
        ("release_orders_everything", Grid(3, 1, 1), (3, 3), "completeness", True),
        # The two false alarms the model found, back in the runtime: a warp
        # barrier before the release or after the acquire, on a grid where
        # the releaser or the acquirer has a lane to share it with (two data
        # accesses and two atomics are enough); and a message-ordered read
        # from X_Rw_R1, which needs four data accesses (W, bsync, R, the
        # read, a write of the reader).
        ("release_ignores_warp_barriers", Grid(2, 1, 2), (2, 2), "soundness", False),
        ("acquire_ignores_warp_barriers", Grid(2, 1, 2), (2, 2), "soundness", False),
        ("read_unasked", Grid(1, 1, 2), (4, 2), "soundness", False),
    ],
)
def test_mutated_message_check_fails_with_a_confirmed_counterexample(
    tmp_path: Path, mutant: str, grid: Grid, bounds: tuple[int, int], invariant: str, racy: bool
) -> None:
    max_data, max_flag_ops = bounds
    text = messages.render(grid, mutant=mutant, max_data=max_data, max_flag_ops=max_flag_ops)
    outcome = rumur.check(text, tmp_path, TIMEOUT)
    assert outcome.failed == invariant
    trace = parse(messages.trace_text(outcome.steps), grid)
    data = trace.locations.index(messages.DATA)
    last = max(i for i in range(len(trace)) if trace.ops[i] < BSYNC and trace.locs[i] == data)
    assert last == len(trace) - 1, "the invariant fails after an access of @d"
    assert oracle.check(trace).racy_after(last, data) is racy
    # The message is in it: an atomic on @f by another thread than the last accessor.
    assert f"@{messages.FLAG}" in messages.trace_text(outcome.steps)
