"""Check kernels with the values engine: the same instrumented source, another runtime.

    from hirace_py.values.checker import ValuesChecker
    checker = ValuesChecker(source, "k.cu")
    launch = checker.launch("k", LaunchConfig.of(grid, block), args)  # arrays updated in place

The launch's results are the union-copy results (docs/engines.md): for a
kernel without races they are what any schedule gives; with races, every read
saw the value at the start of its barrier interval (of its block, for global
memory written by other blocks) and the highest warp (block) won every
write-write conflict, whatever the schedule.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

from hirace_py.arguments import check_arguments
from hirace_py.backends.base import Buffer, upload_arguments
from hirace_py.backends.cpu_device import CpuModule
from hirace_py.backends.select import resolve
from hirace_py.config import Config
from hirace_py.errors import HiraceError
from hirace_py.instrument import instrument
from hirace_py.instrument.api import Instrumented
from hirace_py.instrument.model import Kernel, Tables
from hirace_py.instrument.runtime import include_dir
from hirace_py.interpret import Dim3, SourceLines
from hirace_py.launch_config import LaunchConfig
from hirace_py.report import LaunchReport, Race, Report
from hirace_py.values import layout
from hirace_py.values.interpret import notices, races
from hirace_py.values.runtime import include_dir as values_include_dir

STATE_SYMBOL = "hirace_state"


class ValuesChecker:
    """One instrumented source compiled against the values runtime (CPU backend only)."""

    engine = "values"

    def __init__(
        self,
        source: str,
        filename: str = "kernel.cu",
        config: Config | None = None,
        backend: str = "auto",
        include_dirs: list[str] | None = None,
        instrumented: Instrumented | None = None,
        defines: dict[str, str | int | None] | None = None,
    ) -> None:
        self.config = config or Config()
        if backend == "cupy":
            raise HiraceError("--engine values runs on the CPU backend only; "
                              "use --backend cpu or auto")  # fmt: skip
        name, note = resolve(backend)
        self.backend = "cpu"
        self.backend_note = note if name == "cpu" else (
            "backend auto: the values engine runs on the CPU backend")  # fmt: skip
        self.filename = filename
        self.lines = source.splitlines()
        self.instrumented = instrumented or instrument(source, filename, self.config,
                                                       include_dirs, defines)  # fmt: skip
        self.instrumented.write_headers()
        dirs = [values_include_dir(), include_dir(), *(include_dirs or [])]
        self.module = CpuModule(self.instrumented.source, filename, dirs, defines)
        self.report = Report(filename, warnings=list(self.tables.warnings))
        self.launches = 0

    @property
    def tables(self) -> Tables:
        return self.instrumented.tables

    def kernel_info(self, kernel: str, args: Sequence[object]) -> Kernel:
        """The kernel's parameters, checked against `args` as the FSM engine checks
        them: UnknownKernel, or ArgumentMismatch naming the parameter."""
        info = self.tables.kernel(kernel)
        check_arguments(info, args)
        return info

    def launch(self, kernel: str, config: LaunchConfig, args: Sequence[object]) -> LaunchReport:
        """Run one launch under the values engine; arrays in `args` get the union-copy results."""
        g, b, shared_bytes = config.grid, config.block, config.shared_bytes
        info = self.kernel_info(kernel, args)
        buffers, device_args = upload_arguments(self.module, info.params, args)
        records, counters = self._prepare(info, buffers, shared_bytes)
        timing = self.module.launch(info.name, config, device_args)
        for p, a in zip(info.params, args, strict=True):
            if p.name in buffers:
                self.module.download(buffers[p.name], a)  # type: ignore[arg-type]
        raw = (layout.VRecord * self.config.report_capacity).from_buffer_copy(
            records.read().tobytes())
        count = layout.VCounters.from_buffer_copy(counters.read().tobytes())
        numbers = {name: int(getattr(count, name)) for name, _ in layout.VCounters._fields_}
        launch = LaunchReport(
            kernel, g, b, shared_bytes, "cpu", timing.seconds,
            races=self.races(info, raw, g, b), notices=notices(numbers),
            counters=numbers, stdout=timing.stdout,
        )  # fmt: skip
        self.report.launches.append(launch)
        return launch

    def _prepare(self, info: Kernel, buffers: dict[str, Buffer],
                 shared_bytes: int) -> tuple[Buffer, Buffer]:  # fmt: skip
        """Write the runtime state: the monitored global objects, record table, counters."""
        state = layout.VState()
        regions = []
        for p in info.params:
            buf = buffers.get(p.name)
            if (buf is None or p.var is None or not self.config.monitor_variable(p.name)
                    or buf.nbytes == 0):  # fmt: skip
                continue
            regions.append((self.tables.variables[p.var], buf.address, buf.nbytes))
        for var in self.tables.variables:
            if var.kind == "device" and var.size > 0 and self.config.monitor_variable(var.name):
                regions.append((var, self.module.global_address(var.name), var.size))
        if len(regions) > layout.MAX_OBJECTS:
            raise HiraceError(f"{len(regions)} monitored arrays; the values engine handles "
                              f"at most {layout.MAX_OBJECTS}")  # fmt: skip
        for i, (var, address, nbytes) in enumerate(regions):
            state.regions[i] = layout.VRegion(address, address + nbytes, var.gran_log2, var.id)
        state.n_regions = len(regions)
        cap = self.config.report_capacity
        records = self.module.alloc(cap * ctypes.sizeof(layout.VRecord))
        counters = self.module.alloc(ctypes.sizeof(layout.VCounters))
        self.launches += 1
        state.records, state.record_cap = records.address, cap
        state.counters, state.launch_id = counters.address, self.launches
        state.dyn_shared_bytes = shared_bytes
        state.dyn_gran_log2 = self.tables.dynamic_shared_gran_log2
        state.enabled = 1
        self.module.write_global(STATE_SYMBOL, bytes(state))
        return records, counters

    def races(self, kernel: Kernel, records: ctypes.Array, g: Dim3, b: Dim3) -> list[Race]:
        """The launch's conflict records as races (see `races`)."""
        lines = SourceLines({self.filename: self.lines})

        def variable(var: int) -> tuple[str, str]:
            v = self.tables.variables[var]
            return v.space, v.name

        fields = [{name: int(getattr(r, name)) for name, _ in layout.VRecord._fields_}
                  for r in records]  # fmt: skip
        return races(fields, self.tables.sites, variable, kernel.name, g, b, lines)
