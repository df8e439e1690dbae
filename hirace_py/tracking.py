"""Per-launch shadow memory, region registry and report table, on any backend.

Before a launch, `Tracker.prepare` sizes the shadow-word layout for the grid,
allocates fresh (zeroed) shadow for every monitored argument array and
`__device__` variable, the per-block frames for `__shared__` memory, the race
report table and the counters, and writes `hirace_state` for the instrumented
code to find them. Shadow starts fresh for every launch because it is newly
allocated zeroed memory (zero is INIT): the cost is one allocation and clear of
8 bytes per shadow unit per launch, proportional to the monitored data.
After the launch, `collect` reads the report table, the counters, and which
shadow words ended in RACE.

A *replay* (`prepare(..., replay=first_outcome)`) runs the same launch again
with the words that raced already in RACE; the runtime then logs every access
to them, from which `hirace_py.pairs` lists the racing pairs exactly.
"""

from __future__ import annotations

import ctypes
import dataclasses
from dataclasses import dataclass, field

import numpy as np

from hirace_py.backends.base import Buffer, DeviceModule
from hirace_py.config import Config
from hirace_py.fsm import RACE, STATE_BITS
from hirace_py.instrument import state as st
from hirace_py.instrument.model import Tables, Variable
from hirace_py.interpret import RawRace, decode_record
from hirace_py.shadow import ShadowLayout, ShadowLimitError

SHADOW_WORD = 8
STATE_MASK = (1 << STATE_BITS) - 1
FRAME_BUDGET = 1 << 30
"""Bytes of per-block shared-memory frames before the CPU backend reuses one."""
STATE_SYMBOL = "hirace_state"
LOG_DTYPE = np.dtype([(n, np.uint64 if t == st.U64 else np.uint32) for n, t, _ in st.LOG_FIELDS])


@dataclass
class Outcome:
    """What one tracked launch produced."""

    races: list[RawRace] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    layout: ShadowLayout | None = None
    untracked: str | None = None
    """Why the launch was not tracked at all, if it was not."""
    shadow_bytes: int = 0
    frames_reused: bool = False
    """Shared-memory frames were reused across blocks (their RACE words are lost)."""
    racy: list[np.ndarray] = field(default_factory=list)
    """Per shadow buffer (regions, then frames): indices of the words in RACE."""
    log: np.ndarray | None = None
    """The replay log (LOG_DTYPE records), when this was a replay."""
    log_complete: bool = True


@dataclass
class _Shadow:
    """A shadow buffer and what it covers: a region's variable, or the frames."""

    buffer: Buffer
    var: Variable | None
    frame_units: int = 0


class Tracker:
    """Sets up and reads back launches of one instrumented module."""

    def __init__(
        self, module: DeviceModule, tables: Tables, config: Config, sequential_blocks: bool
    ) -> None:
        self.module = module
        self.tables = tables
        self.config = config
        self.sequential_blocks = sequential_blocks
        self.reports: Buffer | None = None
        self.counters: Buffer | None = None
        self.log: Buffer | None = None
        self.shadows: list[_Shadow] = []
        self._spare: list[Buffer] = []
        self.shared_bytes = 0
        self.kernel = ""
        self.outcome = Outcome()

    def prepare(
        self,
        kernel: str,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        shared_bytes: int,
        arrays: dict[str, Buffer],
        replay: Outcome | None = None,
    ) -> None:
        """Set up zeroed shadow and write the runtime state for this launch."""
        threads, blocks = block[0] * block[1] * block[2], grid[0] * grid[1] * grid[2]
        state = st.State()
        self._spare = [s.buffer for s in self.shadows]
        self.outcome, self.shadows, self.log = Outcome(), [], None
        self.shared_bytes, self.kernel = shared_bytes, kernel
        try:
            layout = ShadowLayout.for_launch(
                threads, blocks, max(len(self.tables.sites), 1), self.config.clock_bits
            )
        except ShadowLimitError as exc:
            self.outcome.untracked = str(exc)
            self.module.write_global(STATE_SYMBOL, bytes(state))
            return
        if not self.config.sites:
            layout = dataclasses.replace(layout, site_bits=0)
        self.outcome.layout = layout
        for f in layout.fields()[1:]:
            setattr(state, f"{f.name}_shift", f.shift)
            setattr(state, f"{f.name}_bits", f.width)
            if f.name in ("tid", "block"):
                setattr(state, f"{f.name}_mask", f.mask << f.shift)
            if f.name in ("tid", "wc", "site"):
                setattr(state, f"{f.name}_field", f.mask)
        state.max_bc, state.max_wc, state.max_rc = layout.max_bc, layout.max_wc, layout.max_rc
        regions = self._regions(kernel, arrays)
        if len(regions) > st.MAX_REGIONS:
            raise ValueError(f"{len(regions)} monitored arrays; at most {st.MAX_REGIONS}")
        for i, (var, address, nbytes) in enumerate(regions):
            units = -(-nbytes >> var.gran_log2)
            shadow = self._zeroed(units * SHADOW_WORD)
            self.shadows.append(_Shadow(shadow, var))
            state.regions[i] = st.Region(
                address, address + nbytes, shadow.address, var.gran_log2, var.id
            )
        state.n_regions = len(regions)
        self._frames(state, blocks, shared_bytes, self.tables.kernel(kernel).shared_units)
        self.outcome.shadow_bytes = sum(s.buffer.nbytes for s in self.shadows)
        cap = self.config.report_capacity
        self.reports = self.module.alloc(cap * ctypes.sizeof(st.RaceRecord))
        self.counters = self.module.alloc(ctypes.sizeof(st.Counters))
        state.reports, state.report_cap = self.reports.address, cap
        state.counters = self.counters.address
        state.block_lo, state.block_hi = self.config.blocks or (0, blocks)
        state.enabled = 1
        if replay is not None:
            self._mark(replay)
            self.log = self.module.alloc(self.config.log_capacity * LOG_DTYPE.itemsize)
            state.log, state.log_cap = self.log.address, self.config.log_capacity
        self.module.write_global(STATE_SYMBOL, bytes(state))

    def _regions(self, kernel: str, arrays: dict[str, Buffer]) -> list[tuple[Variable, int, int]]:
        """(variable, address, bytes) of every monitored global region of the launch."""
        regions = []
        params = {p.name: p for p in self.tables.kernel(kernel).params}
        for name, buf in arrays.items():
            var_id = params[name].var
            if var_id is None or not self.config.monitor_variable(name) or buf.nbytes == 0:
                continue
            regions.append((self.tables.variables[var_id], buf.address, buf.nbytes))
        for var in self.tables.variables:
            if var.kind == "device" and var.size > 0 and self.config.monitor_variable(var.name):
                regions.append((var, self.module.global_address(var.name), var.size))
        return regions

    def _frames(self, state: st.State, blocks: int, shared_bytes: int, static: int) -> None:
        """Per-block frames: the kernel's static __shared__ words, then dynamic ones."""
        t = self.tables
        units = static
        if shared_bytes:
            units = t.dynamic_shared_offset + -(-shared_bytes >> t.dynamic_shared_gran_log2)
        if units == 0:
            return
        n_frames = blocks
        if blocks * units * SHADOW_WORD > FRAME_BUDGET:
            if not self.sequential_blocks:
                raise ValueError(
                    f"shared-memory shadow for {blocks} blocks needs "
                    f"{blocks * units * SHADOW_WORD / 2**30:.1f} GiB; monitor fewer blocks "
                    "(monitor.blocks in hirace.toml)"
                )
            n_frames = 1
            self.outcome.frames_reused = True
        frames = self._zeroed(n_frames * units * SHADOW_WORD)
        self.shadows.append(_Shadow(frames, None, units))
        state.frames, state.frame_units, state.n_frames = frames.address, units, n_frames
        state.dyn_shared_bytes = shared_bytes
        state.dyn_gran_log2 = t.dynamic_shared_gran_log2

    def _zeroed(self, nbytes: int) -> Buffer:
        """A zeroed buffer of `nbytes` for shadow: one of the last launch's of that size,
        cleared (its pages are in memory already: the grid does not fault them in
        again), or a new one."""
        for i, buffer in enumerate(self._spare):
            if buffer.nbytes == nbytes:
                buffer.zero()
                return self._spare.pop(i)
        return self.module.alloc(nbytes)

    def _mark(self, first: Outcome) -> None:
        """Put the words that raced in the first run into RACE in the fresh shadow."""
        for shadow, racy in zip(self.shadows, first.racy, strict=True):
            if racy.size:
                words = np.zeros(shadow.buffer.nbytes // SHADOW_WORD, np.uint64)
                words[racy] = RACE
                shadow.buffer.write(words)

    def collect(self) -> Outcome:
        """Decode the report table, counters, RACE words and replay log of the launch."""
        out = self.outcome
        if self.reports is None or self.counters is None or out.untracked:
            return out
        cap = self.config.report_capacity
        records = (st.RaceRecord * cap).from_buffer_copy(self.reports.read().tobytes())
        single_site = len(self.tables.sites) == 1
        for r in records:
            if r.key:
                fields = {name: getattr(r, name) for name, _ in st.RaceRecord._fields_}
                out.races.append(decode_record(fields, single_site))
        counters = st.Counters.from_buffer_copy(self.counters.read().tobytes())
        out.counters = {name: int(getattr(counters, name)) for name, _ in st.Counters._fields_}
        out.racy = [
            np.flatnonzero((s.buffer.read().view(np.uint64) & STATE_MASK) == RACE)
            for s in self.shadows
        ]
        if self.log is not None:
            n = min(out.counters["logged"], self.config.log_capacity)
            out.log = self.log.read()[: n * LOG_DTYPE.itemsize].view(LOG_DTYPE).copy()
            out.log_complete = out.counters["logged"] <= self.config.log_capacity
        return out

    def locate(self, word: int) -> tuple[Variable, int] | None:
        """The variable and element index a shadow word address belongs to."""
        for s in self.shadows:
            base = s.buffer.address
            if not base <= word < base + s.buffer.nbytes:
                continue
            index = (word - base) // SHADOW_WORD
            if s.var is not None:
                return s.var, index
            offset = index % s.frame_units
            kernels = {k.name for k in self.tables.kernels}
            for var in self.tables.variables:
                # Other kernels' own __shared__ variables overlap this kernel's.
                if var.space != "shared" or (var.function in kernels and
                                             var.function != self.kernel):  # fmt: skip
                    continue
                size = var.size if var.kind == "shared" else self.shared_bytes
                units = -(-size >> var.gran_log2)
                if var.frame_offset <= offset < var.frame_offset + units:
                    return var, offset - var.frame_offset
        return None
