"""Random traces up to 40 events on random small grids: table == oracle after every prefix.

The default run draws 500 examples; `pytest -m slow` runs the same property
on 20,000. With the events the table does not model (partial masks, fences,
memory orders; docs/fsm.md) the property is soundness: no race missed.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from hirace_py import crosscheck
from hirace_py.trace import Trace
from tests.trace_strategies import traces


def assert_agrees(trace: Trace) -> None:
    batch = crosscheck.Batch(
        trace.grid,
        trace.ops[None, :],
        trace.who[None, :],
        trace.locs[None, :],
        len(trace.locations),
    )
    result = crosscheck.compare(batch)
    assert result.disagreements == 0, f"grid {trace.grid}: {trace.format()}"


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces())
def test_random_traces_agree_with_oracle(trace: Trace) -> None:
    assert_agrees(trace)


@pytest.mark.slow
@settings(max_examples=20_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces())
def test_random_traces_agree_with_oracle_slow(trace: Trace) -> None:
    assert_agrees(trace)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(extended=True))
def test_random_traces_with_unmodelled_events_miss_no_race(trace: Trace) -> None:
    batch = crosscheck.Batch(
        trace.grid,
        trace.ops[None, :],
        trace.who[None, :],
        trace.locs[None, :],
        len(trace.locations),
    )
    assert crosscheck.compare(batch).missed == 0, f"grid {trace.grid}: {trace.format()}"
