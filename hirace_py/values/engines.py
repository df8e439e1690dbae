"""Choose a race engine: "fsm" (shadow words), "values" (LD-style) or "both".

`make_checker(engine, ...)` returns an object with the `Checker` interface the
commands use (`launch`, `report`, `tables`, `backend_note`). "both" runs the
FSM engine and then the values engine on the same inputs, reports the races
either found (each tagged with its engine), and adds one notice per
disagreement with its reason (see `hirace_py.values.compare`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hirace_py.checker import Checker
from hirace_py.config import Config
from hirace_py.errors import HiraceError
from hirace_py.instrument.model import Tables
from hirace_py.launch_config import LaunchConfig
from hirace_py.report import LaunchReport, Report
from hirace_py.values import ENGINES
from hirace_py.values.checker import ValuesChecker
from hirace_py.values.compare import Disagreement, disagreements, merge_launch


class BothChecker:
    """The FSM and values engines on one instrumented source, launch by launch."""

    engine = "both"

    def __init__(
        self,
        source: str,
        filename: str = "kernel.cu",
        config: Config | None = None,
        backend: str = "auto",
        include_dirs: list[str] | None = None,
        deterministic: bool = False,
        defines: dict[str, str | int | None] | None = None,
    ) -> None:
        self.fsm = Checker(source, filename, config, backend, include_dirs, defines)
        self.values = ValuesChecker(
            source, filename, config, "cpu", include_dirs, self.fsm.instrumented, defines
        )
        self.deterministic = deterministic
        self.backend_note = f"{self.fsm.backend_note}; values engine on the CPU backend"
        self.report = Report(filename, warnings=list(self.tables.warnings))
        self.last_disagreements: list[Disagreement] = []

    @property
    def tables(self) -> Tables:
        return self.fsm.tables

    def launch(self, kernel: str, config: LaunchConfig, args: Sequence[object]) -> LaunchReport:
        """Both engines from the same inputs. The arrays in `args` get the FSM run's
        results (the plain execution), or the values run's with `deterministic`."""
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        fsm_args, values_args = (copies, args) if self.deterministic else (args, copies)
        f = self.fsm.launch(kernel, config, fsm_args)
        v = self.values.launch(kernel, config, values_args)
        self.last_disagreements = disagreements(f, v)
        launch = merge_launch(f, v, [d.notice() for d in self.last_disagreements])
        self.report.launches.append(launch)
        return launch


def make_checker(
    engine: str,
    source: str,
    filename: str = "kernel.cu",
    config: Config | None = None,
    backend: str = "auto",
    include_dirs: list[str] | None = None,
    deterministic: bool = False,
    defines: dict[str, str | int | None] | None = None,
) -> Checker | ValuesChecker | BothChecker:
    """A checker for `engine`; `deterministic` (values or both only) makes the
    launches' results the values engine's union-copy results. `defines` (-D)
    are honoured by the FSM engine only."""
    if engine not in ENGINES:
        raise HiraceError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    if engine == "fsm":
        if deterministic:
            raise HiraceError("--deterministic needs --engine values or both: deterministic "
                              "results are the values engine's union copies")  # fmt: skip
        return Checker(source, filename, config, backend, include_dirs, defines)
    if engine == "values":
        return ValuesChecker(source, filename, config, backend, include_dirs, defines=defines)
    return BothChecker(source, filename, config, backend, include_dirs, deterministic, defines)
