"""Atomic loads (docs/semantics.md 1.2, 1.5; docs/fsm.md, "Atomic loads").

A relaxed `cuda::atomic` load is a read and an atomic: it conflicts with a
plain write, and with an atomic read-modify-write whose scope does not cover
both threads, and with nothing else. Graph codes load neighbours' values this
way while other threads read them plainly or lower them with atomicMin; the
runtime took every load for a read-modify-write and reported those codes.
Here: the trace syntax and `hirace fsm --trace`, the table on the pairs the
semantics name, and our own reproduction of the graph pattern
(tests/libcu_kernels/relax.cu) through the instrumenter and the CPU runtime.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hirace_py
from hirace_py import fsm, oracle, replay
from hirace_py.cli import main
from hirace_py.trace import TraceSyntaxError, parse

RELAX = Path(__file__).parent / "libcu_kernels" / "relax.cu"
SOURCE = RELAX.read_text()
N = 128

# (trace, racy): each decided by the oracle and the table alike.
PAIRS = [
    ("GL 0.0.0; R 1.0.0; GL 1.0.1; R 0.1.0", False),  # loads and reads, any blocks
    ("GL 0.0.0; GA 1.0.0; GL 1.0.1; GA 0.0.1", False),  # loads and device atomics
    ("BL 0.0.0; BA 0.0.1; BL 0.1.0", False),  # block scope within a block
    ("GL 0.0.0; W 0.0.1", True),  # a load and a plain write
    ("W 0.0.0; bsync 0; GL 0.1.0; R 0.0.1", False),  # ordered by the barrier
    ("BL 0.0.0; GA 1.0.0", True),  # block-scope load, another block's atomic
    ("GL 0.0.0; BA 1.0.0", True),
    ("GA 0.0.0; GL 1.0.0; W 1.0.0", False),  # the load observed the atomic
    ("GA 0.0.0; GL 1.0.0; W 1.0.1", True),
]


@pytest.mark.parametrize(("text", "racy"), PAIRS)
def test_table_and_oracle_on_load_pairs(text: str, racy: bool) -> None:
    trace = parse(text)
    assert oracle.check(trace).racy == racy
    assert (replay.replay_trace(trace)[-1] == fsm.RACE) == racy


def test_a_load_only_acquires() -> None:
    parse("GL.acq 0.0.0")
    for order in ("rel", "ar"):
        with pytest.raises(TraceSyntaxError, match="cannot release"):
            parse(f"GL.{order} 0.0.0")


def test_fsm_trace_accepts_loads(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fsm", "--trace", "GL 0.0.0; R 1.0.0; W 1.0.1"]) == 0
    out = capsys.readouterr().out
    assert "GL 0.0.0 @0" in out and "verdict: race on @0" in out
    assert main(["fsm", "--trace", "GL 0.0.0; R 1.0.0"]) == 0
    assert "verdict: no race" in capsys.readouterr().out


def _launch(kernel: str) -> hirace_py.report.LaunchReport:
    src = np.arange(N, dtype=np.int32) // 2
    dst = (np.arange(N, dtype=np.int32) + 1) // 2
    level = np.arange(N, dtype=np.int32)
    nxt = np.full(N, N, np.int32)
    own = np.zeros(N, np.int32)
    report = hirace_py.check(SOURCE, kernel, 4, 32, [src, dst, level, nxt, own, N],
                             backend="cpu", filename=str(RELAX))  # fmt: skip
    assert (own == level).all() or kernel != "relax"
    assert nxt[1] == min(src[e] for e in range(N) if dst[e] == 1) + 1
    return report.launches[0]


def _line(tag: str) -> int:
    return next(n for n, t in enumerate(SOURCE.splitlines(), 1) if t.endswith(f"// [{tag}]"))


def test_graph_relaxation_with_atomic_loads_is_race_free() -> None:
    launch = _launch("relax")
    assert launch.races == []


def test_a_plain_store_among_the_loads_is_reported() -> None:
    launch = _launch("relax_store")
    pairs = {(r.kind, r.variable, tuple(sorted((r.first.site.line, r.second.site.line))))
             for r in launch.races if r.first.site and r.second.site}  # fmt: skip
    assert pairs == {("atomic-plain", "level", tuple(sorted((_line("LD"), _line("ST")))))}
