"""The dump a whole program writes at exit, read back into a `Report`.

An instrumented program (templates/hirace_host.h.j2) interprets nothing: at
exit it writes, to `$HIRACE_DUMP`, the site and variable tables of its units,
the names of the allocations it monitored, and every instrumented launch with
the raw race records and counters the device left (fields as in
hirace_py.instrument.state). `load` turns that into the same `Report` a
single-kernel check produces, through hirace_py.interpret; `hirace report
DUMP` renders it, from a program run anywhere.
"""

from __future__ import annotations

import gc
import json
import struct
from pathlib import Path
from typing import Any

from hirace_py import host_events, host_record
from hirace_py.config import Config
from hirace_py.errors import InputError
from hirace_py.fsm import Action
from hirace_py.hostdev import findings as hostdev_findings
from hirace_py.hostdev import load as hostdev_load
from hirace_py.instrument.model import Site
from hirace_py.instrument.model import Warning as InstrumentWarning
from hirace_py.instrument.state import ALLOCATION_BIT
from hirace_py.interpret import (
    SourceLines,
    bounds,
    decode_record,
    not_tracked,
    notices,
    races,
)
from hirace_py.profile import analyse
from hirace_py.report import LaunchReport, Notice, Report
from hirace_py.shadow import ShadowLayout, ShadowLimitError
from hirace_py.values import interpret as values_records

FORMAT = "hirace-dump"
VERSION = 4
Unit = tuple[list[Site], list[str]]
"""A program unit's sites and variable names."""


def _units(doc: dict[str, Any]) -> list[Unit]:
    units = []
    for u in doc["units"]:
        sites = [Site(i, file, line, column, Action(action).name, function, expr)
                 for i, (file, line, column, action, expr, function)
                 in enumerate(u["sites"])]  # fmt: skip
        units.append((sites, list(u["variables"])))
    return units


def _config(doc: dict[str, Any]) -> Config:
    c = doc["config"]
    blocks = tuple(c["blocks"]) if c["blocks"] is not None else None
    return Config(report_capacity=c["report_capacity"], clock_bits=c["clock_bits"] or None,
                  sites=c["sites"], blocks=blocks, pairs="last")  # fmt: skip


def _launch(raw: dict[str, Any], units: list[Unit], allocations: list[tuple[str, int]],
            config: Config, doc: dict[str, Any], lines: SourceLines) -> LaunchReport:  # fmt: skip
    sites, variables = units[raw["unit"]]
    g, b = tuple(raw["grid"]), tuple(raw["block"])
    launch = LaunchReport(raw["kernel"], g, b, raw["shared_bytes"], doc["backend"], None)  # type: ignore[arg-type]
    if doc.get("engine", "fsm") == "values":
        return _values_launch(launch, raw, sites, variables, allocations, lines)
    if not raw["tracked"]:
        try:
            ShadowLayout.for_launch(b[0] * b[1] * b[2], g[0] * g[1] * g[2], max(len(sites), 1),
                                    config.clock_bits)  # fmt: skip
            why = "no device memory for its shadow"
        except ShadowLimitError as exc:
            why = str(exc)
        launch.notices.append(not_tracked(why))
        return launch

    def variable(var: int) -> tuple[str, str, int]:
        if var & ALLOCATION_BIT:
            name, size = allocations[var & ~ALLOCATION_BIT]
            return "global", name, size
        return "shared", variables[var] if var < len(variables) else "?", 0

    layout = raw["layout"]
    single_site = len(sites) == 1
    raws = [decode_record(r, single_site) for r in raw["records"]]
    launch.races = races(raws, sites, lambda v: variable(v)[:2], raw["kernel"], g, b, lines)  # type: ignore[arg-type]
    launch.bounds = bounds(
        raw["bounds"],
        raw["counters"]["out_of_bounds"],
        sites,
        variable,
        raw["kernel"],
        g,
        b,
        lines,
        not doc["bounds_continue"],
    )  # type: ignore[arg-type]
    launch.counters = dict(raw["counters"])
    launch.notices = notices(launch.counters, (1 << layout["bc_bits"]) - 1,
                             (1 << layout["wc_bits"]) - 1, layout["site_bits"], len(sites),
                             config.sites)  # fmt: skip
    launch.shadow_bytes = raw["shadow_bytes"]
    return launch


def _values_launch(launch: LaunchReport, raw: dict[str, Any], sites: list[Site],
                   variables: list[str], allocations: list[tuple[str, int]],
                   lines: SourceLines) -> LaunchReport:  # fmt: skip
    """A launch of a program built with the values engine: its conflict records
    and counters (hirace_py.values.layout), as `hirace check --engine values`
    reads them."""

    def variable(var: int) -> tuple[str, str]:
        if var & ALLOCATION_BIT:
            return "global", allocations[var & ~ALLOCATION_BIT][0]
        return "shared", variables[var] if var < len(variables) else "?"

    launch.races = values_records.races(raw["records"], sites, variable, launch.kernel,
                                        launch.grid, launch.block, lines)  # fmt: skip
    launch.counters = dict(raw["counters"])
    launch.notices = values_records.notices(launch.counters)
    return launch


def load(path: Path, lines: SourceLines | None = None, profile: bool = False,
         host: bool = True) -> Report:  # fmt: skip
    """The report of the program run that wrote the dump at `path`, with its
    host-device findings (hirace_py.hostdev) unless `host` is False (they are
    most of the cost of loading a dump: a caller that reads only the launches
    leaves them out), and its transfer profile if asked (hirace_py.profile);
    InputError naming the file if it is not a dump this hirace reads."""
    # The dump of a long run holds many small objects that live until the
    # report is made: the cycle collector would walk them again and again.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _load(path, lines, profile, host)
    finally:
        if collecting:
            gc.enable()


def read_document(path: Path) -> dict[str, Any]:
    """The dump at `path` as one JSON document, its host record (the file it
    names, hirace_py.host_record) read into it; InputError naming the file if
    it is not a dump this hirace reads."""
    try:
        doc = json.loads(path.read_text())
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a hirace dump (not JSON: {exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InputError(f'{path}: not a hirace dump (no "format": "{FORMAT}")')
    if doc.get("version") != VERSION:
        raise InputError(f"{path}: dump format version {doc.get('version')!r}; this hirace "
                         f"reads version {VERSION}")  # fmt: skip
    try:
        host_record.inline(doc, path)
    except OSError as exc:
        raise InputError(f"{path}: cannot read its host record: {exc.strerror}") from None
    except (ValueError, IndexError, struct.error) as exc:
        raise InputError(f"{path}: a damaged host record ({exc})") from None
    return doc


def _load(path: Path, lines: SourceLines | None, profile: bool, host: bool) -> Report:
    doc = read_document(path)
    try:
        lines = lines or SourceLines()
        report = _report(doc, lines)
        if not (host or profile):
            return report
        record = host_events.read(doc)
        if host:
            report.host = hostdev_findings.analyse(hostdev_load.program(doc, record), lines)
        if profile:
            report.profile = analyse(record, doc["backend"])
            if not report.profile.kernels_instrumented:
                # Kernels left uninstrumented on purpose: the profile says so.
                report.notices = [n for n in report.notices if n.code != "uninstrumented-kernel"]
        return report
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise InputError(f"{path}: a damaged hirace dump ({type(exc).__name__}: {exc})") from None


def _report(doc: dict[str, Any], lines: SourceLines) -> Report:
    units = _units(doc)
    config = _config(doc)
    files = ", ".join(dict.fromkeys(u["file"] for u in doc["units"]))
    kernels = {k for u in doc["units"] for k in u["kernels"]}
    warnings = [InstrumentWarning(*w) for u in doc["units"] for w in u["warnings"]]
    # A launch of a kernel another unit defines is checked there (as `hirace build` says).
    warnings = [w for w in warnings if not (w.code == "launch" and w.subject in kernels)]
    report = Report(files, warnings=warnings, pairs="last")
    for raw in doc["launches"]:
        allocations = [(a[0], a[1]) for a in doc["allocations"]]
        report.launches.append(_launch(raw, units, allocations, config, doc, lines))
    if n := doc["uninstrumented_launches"]:
        report.notices.append(Notice(
            "uninstrumented-kernel",
            f"{n} launch(es) of kernels defined in files that were not instrumented", n,
        ))  # fmt: skip
    coarse = sum(1 for raw in doc["launches"] for run in raw.get("footprint", ())
                 if run[3] == host_events.FOOTPRINT_COARSE)  # fmt: skip
    if coarse:
        report.notices.append(Notice(
            "coarse-footprint",
            f"{coarse} time(s) a launch left more than {host_events.FOOTPRINT_RUNS} runs of "
            "touched units in one allocation: kept as the range it touched, taken as read and "
            "written (no host-device finding is judged on it)", coarse,
        ))  # fmt: skip
    if n := doc["unregistered"]:
        report.notices.append(Notice(
            "unregistered",
            f"{n} allocation(s) not monitored (too many, or no memory for their shadow)", n,
        ))  # fmt: skip
    return report
