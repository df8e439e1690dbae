"""A values-only race that follows from another race: the "cascade" class.

On a racy kernel the two engines execute differently (the values engine's
reads of a racing location see the interval's start value), so a race that
depends on racing values can be met by the values engine alone
(tests/values_kernels/cascade.cu: a list appended through a racing counter;
Indigo3's MST RaceBug codes do exactly this). hirace_py.values.compare calls
such a race "cascade" when the FSM engine found a race where it compared, and
"unexplained" only where the FSM engine found none.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hirace_py.launch_config import LaunchConfig
from hirace_py.values.compare import classify_values
from hirace_py.values.engines import BothChecker

SOURCE = (Path(__file__).parent / "values_kernels" / "cascade.cu").read_text()


def test_a_list_appended_through_a_racing_counter() -> None:
    both = BothChecker(SOURCE, "cascade.cu", backend="cpu")
    launch = both.launch("push", LaunchConfig.of(1, 64), [np.zeros(4, np.int32),
                                                          np.zeros(1, np.int32)])  # fmt: skip
    found = {(r.engine, r.variable, r.kind) for r in launch.races}
    assert ("fsm", "n", "read-write") in found and ("values", "n", "read-write") in found
    assert ("values", "list", "write-write") in found
    assert not any(e == "fsm" and v == "list" for e, v, _ in found)
    [cascade] = [d for d in both.last_disagreements if d.found_by == "values"]
    assert cascade.variable == "list" and cascade.reason == "cascade"
    # Without the FSM engine's race the same values race would be a bug.
    values_race = next(r for r in launch.races if r.engine == "values" and r.variable == "list")
    assert classify_values(values_race, [], "exact") == "unexplained"
