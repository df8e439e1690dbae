"""Build and feed tests/cxx/step_harness.cpp: traces through the runtime's C++ `step()`.

Shared by tests/test_step_cxx.py (the table's traces) and
tests/test_warp_groups.py (lane groups). The harness prints the accessed
word's state after every event (-1 at barriers), in replay()'s shape.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from hirace_py import crosscheck
from hirace_py.backends import cpu_program
from hirace_py.instrument.runtime import include_dir
from hirace_py.shadow import ShadowLayout
from hirace_py.trace import GSYNC

SOURCE = Path(__file__).parent / "cxx" / "step_harness.cpp"


def build(tmp: Path, headers: Path, defines: dict[str, str | int | None]) -> Path:
    """The harness built against the runtime headers in `headers`, with `defines`."""
    prt = cpu_program.program_runtime()
    flags = cpu_program.compile_flags(prt, [headers], defines, tmp)
    obj, exe = tmp / "step.o", tmp / "step"
    cpu_program.compile_object(SOURCE, obj, flags, SOURCE.read_text(), "step_harness.cpp")
    cpu_program.link(prt, [obj], exe)
    return exe


def run(exe: Path, batch: crosscheck.Batch, sites: np.ndarray, n_sites: int) -> np.ndarray:
    """(B, n): the state after each event, with access i at site `sites[b, i]` of
    `n_sites` (the layout's site field is sized for them)."""
    grid = batch.grid
    layout = ShadowLayout.for_launch(grid.warps * 32, grid.blocks, sites=n_sites)
    f = {x.name: x for x in layout.fields()}
    n_traces, n_events = batch.ops.shape
    header = [grid.blocks, grid.warps, grid.lanes, batch.n_locs,
              f["tid"].shift, f["block"].shift, f["wc"].shift, f["bc"].shift,
              layout.site_bits, layout.tid_bits, layout.block_bits, layout.wc_bits,
              f["rc"].shift, layout.rc_bits, n_traces, n_events]  # fmt: skip
    # The harness takes hirace_py.trace's op codes (grid barriers excepted).
    assert not (batch.ops == GSYNC).any(), "the harness has no grid barrier"
    events = np.stack([batch.ops, batch.who, batch.locs, sites], axis=2).astype(np.int64)
    text = " ".join(map(str, header)) + "\n" + " ".join(map(str, events.ravel().tolist()))
    result = subprocess.run([str(exe)], input=text, capture_output=True, text=True,
                            timeout=600, env={"HIRACE_QUIET": "1"})  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return np.array(result.stdout.split(), np.int32).reshape(n_traces, n_events)


def mutated_headers(tmp: Path, old: str, new: str) -> Path:
    """A copy of the runtime headers in tmp/include with the one occurrence of
    `old` in hirace_runtime.cuh replaced by `new` (a mutant of the runtime)."""
    headers = tmp / "include"
    headers.mkdir()
    for source in Path(include_dir()).iterdir():
        text = source.read_text()
        if source.name == "hirace_runtime.cuh":
            assert text.count(old) == 1, old
            text = text.replace(old, new)
        (headers / source.name).write_text(text)
    return headers
