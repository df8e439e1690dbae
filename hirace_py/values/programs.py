"""Whole programs under the values engine, and under both engines.

A program's engine is chosen when it is built (`BuildOptions.engine`): the
sources are instrumented and translated once, the same way for both engines,
and only the runtime headers the compiler finds differ
(`hirace_py.instrument.runtime.write_include_dir`). `--engine both` is two
builds of one program, `OUT` (FSM engine) and `OUT.values` (values engine),
run one after the other with the same arguments; `merge` makes one report of
their two dumps.

Two runs of a racy program need not launch the same kernels: the values
engine's reads see union copies (docs/engines.md), so a loop that stops when
nothing changed may run another number of times. When both runs made the same
launches (kernel, grid and block, in order) the report pairs them launch by
launch, as `hirace check --engine both` does; when they did not, it lists the
FSM run's launches, then the values run's, and says so. Either way the
engines are compared over the whole program: one notice per race key that
one engine found and the other did not, with its reason.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hirace_py.errors import HiraceError
from hirace_py.program import BuildOptions
from hirace_py.report import Notice, Report
from hirace_py.values import ENGINES
from hirace_py.values.compare import compare, merge_launch, passed_messages

VALUES_SUFFIX = ".values"
"""`--engine both` writes the values engine's program as OUT.values."""


def builds(options: BuildOptions, engine: str) -> dict[str, BuildOptions]:
    """The programs `engine` needs, by engine: `options` for one engine; for
    "both", `options` (FSM) and the same with OUT.values for the values engine."""
    if engine not in ENGINES:
        raise HiraceError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    if engine != "both":
        return {engine: dataclasses.replace(options, engine=engine)}
    return {
        "fsm": dataclasses.replace(options, engine="fsm"),
        "values": dataclasses.replace(options, engine="values",
                                      output=values_output(options.output)),
    }


def _same_launches(fsm: Report, values: Report) -> bool:
    def shape(report: Report) -> list[tuple]:
        return [(x.kernel, tuple(x.grid), tuple(x.block)) for x in report.launches]

    return shape(fsm) == shape(values)


def merge(fsm: Report, values: Report) -> Report:
    """One report of a program's FSM run and values run (see the module's docstring).
    Host-device findings are the FSM run's (both runs make the same host calls
    up to where their results differ)."""
    messages = passed_messages([*values.notices, *(n for x in values.launches
                                                   for n in x.notices)])
    differences = compare([(r, x.block) for x in fsm.launches for r in x.races], values.races,
                          fsm.pairs, messages)
    notices = [d.notice() for d in differences]
    report = Report(fsm.filename, warnings=list(fsm.warnings), pairs=fsm.pairs,
                    host=list(fsm.host))  # fmt: skip
    report.notices = list(fsm.notices)
    report.notices += [n for n in values.notices if n not in report.notices]
    if _same_launches(fsm, values):
        report.launches = [merge_launch(f, v, []) for f, v in
                           zip(fsm.launches, values.launches, strict=True)]  # fmt: skip
    else:
        report.launches = [*fsm.launches, *values.launches]
        report.notices.append(Notice(
            "engines-diverged",
            f"the FSM run made {len(fsm.launches)} launch(es) and the values run "
            f"{len(values.launches)}, not the same sequence (a racy program's values run reads "
            "union copies, so its control flow can differ): both runs' launches are listed, "
            "and the engines are compared over the whole program",
        ))  # fmt: skip
    report.notices += notices
    return report


def values_output(output: Path) -> Path:
    """Where `--engine both` puts the values engine's program built as `output`."""
    return output.with_name(output.name + VALUES_SUFFIX)
