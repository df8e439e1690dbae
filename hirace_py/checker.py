"""Check kernels for races end to end: instrument, compile, launch, report.

    import hirace_py
    report = hirace_py.check(source, "kernel", grid, block, args,
                             shared_bytes=0, backend="auto", config=None)

`Checker` does the same for several launches of one source, compiling once.
Argument arrays are NumPy arrays, updated in place as by the kernel.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hirace_py import interpret
from hirace_py.arguments import check_arguments
from hirace_py.backends.base import Buffer, LaunchTiming, signatures, upload_arguments
from hirace_py.backends.select import open_module, resolve
from hirace_py.config import Config
from hirace_py.errors import Finding
from hirace_py.instrument import instrument
from hirace_py.instrument.model import Kernel, Site, Tables
from hirace_py.instrument.runtime import include_dir
from hirace_py.launch_config import Dim3, Dims, LaunchConfig, Schedule
from hirace_py.pairs import exact_pairs
from hirace_py.report import Access, LaunchReport, Notice, Race, Report, race_kind
from hirace_py.tracking import LOG_DTYPE, Outcome, Tracker


class Checker:
    """One instrumented, compiled source; launch its kernels and collect races."""

    def __init__(
        self,
        source: str,
        filename: str = "kernel.cu",
        config: Config | None = None,
        backend: str = "auto",
        include_dirs: list[str] | None = None,
        defines: dict[str, str | int | None] | None = None,
    ) -> None:
        self.config = config or Config()
        self.backend, self.backend_note = resolve(backend)
        self.filename = filename
        self.lines = interpret.SourceLines({filename: source.splitlines()})
        self.instrumented = instrument(source, filename, self.config, include_dirs, defines)
        self.instrumented.write_headers()
        dirs = [include_dir(), *(include_dirs or [])]
        self.module, sequential = open_module(
            self.backend, self.instrumented.source, filename, dirs,
            signatures(self.tables.kernels), defines,
        )  # fmt: skip
        self.tracker = Tracker(self.module, self.tables, self.config, sequential)
        self.report = Report(filename, warnings=list(self.tables.warnings),
                             pairs=self.config.pairs)  # fmt: skip

    @property
    def tables(self) -> Tables:
        return self.instrumented.tables

    def launch(self, kernel: str, config: LaunchConfig, args: Sequence[object]) -> LaunchReport:
        """Run one launch with fresh shadow; arrays in `args` are updated in place.

        If it races and `report.pairs` is "exact", the launch is replayed from
        the same inputs to list every racing pair of sites exactly. A launch
        that fails with a `Finding` (a fault, the time limit) is still added
        to the report, with the races recorded before it stopped, and the
        error is raised.
        """
        g, b = config.grid, config.block
        info = self.kernel_info(kernel, args)
        try:
            outcome, timing, results = self.run(info, config, args)
        except Finding as exc:
            # A fault, a hang stopped by the time limit: what the device recorded
            # before it stopped is reported with the error.
            partial = self.tracker.collect()
            self.report.launches.append(LaunchReport(
                kernel, g, b, config.shared_bytes, self.backend, 0.0,
                races=self.races(info, partial, g, b), notices=self.notices(partial),
                counters=partial.counters, shadow_bytes=partial.shadow_bytes, error=str(exc),
            ))  # fmt: skip
            raise
        races = self.races(info, outcome, g, b)
        notices = self.notices(outcome)
        if outcome.races and self.config.pairs == "exact":
            # `args` still hold the inputs: the results are copied back below.
            replayed, _, _ = self.run(info, config, args, outcome)
            races, more = self.exact_races(info, outcome, replayed, races, g, b)
            notices += more
        for p, a in zip(info.params, args, strict=True):
            if p.name in results:
                self.module.download(results[p.name], a)  # type: ignore[arg-type]
        launch = LaunchReport(
            kernel, g, b, config.shared_bytes, self.backend, timing.seconds, races=races,
            notices=notices, counters=outcome.counters, shadow_bytes=outcome.shadow_bytes,
            stdout=timing.stdout,
        )  # fmt: skip
        self.report.launches.append(launch)
        return launch

    def kernel_info(self, kernel: str, args: Sequence[object]) -> Kernel:
        """The kernel's parameters, checked against `args`: UnknownKernel, or
        ArgumentMismatch naming the parameter."""
        info = self.tables.kernel(kernel)
        check_arguments(info, args)
        return info

    def run(
        self,
        info: Kernel,
        config: LaunchConfig,
        args: Sequence[object],
        replay: Outcome | None = None,
    ) -> tuple[Outcome, LaunchTiming, dict[str, Buffer]]:
        """One tracked launch from the arrays in `args`, which it leaves unchanged.

        Returns the outcome, the timing, and the device buffers holding the
        kernel's results, by parameter name.
        """
        buffers, device_args = upload_arguments(self.module, info.params, args)
        self.tracker.prepare(info.name, config.grid, config.block, config.shared_bytes, buffers,
                             replay)  # fmt: skip
        timing = self.module.launch(info.name, config, device_args, echo=replay is None)
        return self.tracker.collect(), timing, buffers

    def exact_races(
        self,
        info: Kernel,
        first: Outcome,
        replayed: Outcome,
        approximate: list[Race],
        g: Dim3,
        b: Dim3,
    ) -> tuple[list[Race], list[Notice]]:
        """Races from the replay log; falls back to `approximate` where the log is short."""
        log = replayed.log if replayed.log is not None else np.zeros(0, LOG_DTYPE)
        grouped: dict[tuple, list] = {}
        for (sa, sb), per_word in exact_pairs(log, self.tables.group_log2).items():
            for word, pair in per_word.items():
                located = self.tracker.locate(word)
                if located is None:
                    continue
                var, element = located
                grouped.setdefault((sa, sb, var.id), []).append((element, pair))
        races = []
        sites = self.tables.sites
        for (sa, sb, var_id), items in grouped.items():
            var = self.tables.variables[var_id]
            element, pair = min(items, key=lambda x: x[0])
            races.append(Race(
                race_kind(sites[sa].action, sites[sb].action), var.space, var.name, info.name,
                self.access(sites[pair.first.site], pair.first.tid, pair.first.block, g, b),
                self.access(sites[pair.second.site], pair.second.tid, pair.second.block, g, b),
                len(items), element, True,
            ))  # fmt: skip
        notices = []
        complete = replayed.log_complete and not first.frames_reused
        if not complete:
            found = {(r.first.site, r.second.site) for r in races}
            races += [r for r in approximate if (r.first.site, r.second.site) not in found
                      and (r.second.site, r.first.site) not in found]  # fmt: skip
            why = ("the replay log was full (raise report.log_capacity)"
                   if not replayed.log_complete else
                   "shared-memory shadow was reused across blocks")  # fmt: skip
            notices.append(
                Notice(
                    "pairs-incomplete",
                    f"exact racing pairs are incomplete: {why}; "
                    "races marked inexact come from the shadow word alone",
                )
            )
        return sorted(races, key=lambda r: (r.lines(), r.kind)), notices

    def access(self, site: Site | None, tid: int, block: int, g: Dim3, b: Dim3) -> Access:
        return interpret.access(site, tid, block, g, b, self.lines)

    def races(self, kernel: Kernel, outcome: Outcome, g: Dim3, b: Dim3) -> list[Race]:
        """Merge device records into races keyed by the unordered pair of sites and kind."""

        def variable(var: int) -> tuple[str, str]:
            v = self.tables.variables[var]
            return v.space, v.name

        return interpret.races(outcome.races, self.tables.sites, variable, kernel.name, g, b,
                               self.lines)  # fmt: skip

    def notices(self, outcome: Outcome) -> list[Notice]:
        """Everything the launch could not check, from the device counters."""
        if outcome.untracked:
            return [interpret.not_tracked(outcome.untracked)]
        layout = outcome.layout
        assert layout is not None
        return interpret.notices(
            outcome.counters, layout.max_bc, layout.max_wc, layout.site_bits,
            len(self.tables.sites), self.config.sites,
        )  # fmt: skip


def check(
    source: str,
    kernel: str,
    grid: Dims,
    block: Dims,
    args: Sequence[object],
    shared_bytes: int = 0,
    backend: str = "auto",
    config: Config | None = None,
    filename: str = "kernel.cu",
    seed: int = 0,
    schedule: Schedule | str = Schedule.inorder,
) -> Report:
    """Instrument `source`, run `kernel` once, and report its races."""
    checker = Checker(source, filename, config, backend)
    checker.launch(kernel, LaunchConfig.of(grid, block, shared_bytes, seed, schedule), args)
    return checker.report
