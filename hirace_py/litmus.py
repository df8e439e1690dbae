"""Run a litmus suite against its manifest: every expected race found, nothing else.

A manifest (`kernels/manifest.toml`, schema in docs/launch-spec.md) lists
cases: a kernel launch and the races it must produce, as unordered pairs of
source lines with a kind and a memory space. A case passes when the set of
reported (line pair, kind, space) equals the expected set: a missing entry is
a miss, an extra one a false alarm.

With `engine="values"` the expected set is the manifest's less the misses the
suite documents for the values engine (`values.toml` next to the manifest:
each a race of the manifest with its false-negative class, docs/engines.md);
with `engine="both"` the FSM engine's races must match the manifest and the
values engine's as for "values".
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hirace_py
from hirace_py.config import Config
from hirace_py.errors import ExitCode, ToolFailure
from hirace_py.launchspec import SpecError, load_toml, parse_launch
from hirace_py.report import KINDS, SCHEMA_VERSION
from hirace_py.values.compare import REASONS, Disagreement
from hirace_py.values.engines import make_checker

CASE_KEYS = {"name", "file", "description", "expect", "races", "warnings"}
Key = tuple[tuple[int, int], str, str]


@dataclass(frozen=True)
class Case:
    name: str
    file: Path
    description: str
    expect: str
    races: frozenset[Key]
    warnings: frozenset[str]
    launch: object
    values_misses: frozenset[Key] = frozenset()
    """Races of `races` the values engine is documented to miss (values.toml)."""


@dataclass
class Result:
    case: Case
    found: set[Key] = field(default_factory=set)
    warnings: set[str] = field(default_factory=set)
    error: str = ""
    seconds: float = 0.0
    engine: str = "fsm"
    values_found: set[Key] | None = None
    """With engine "both": what the values engine found (`found` is the FSM's)."""
    disagreements: list[Disagreement] = field(default_factory=list)
    """With engine "both": the race keys one engine found alone, classified."""

    def _expected(self, engine: str) -> set[Key]:
        races = set(self.case.races)
        return races - self.case.values_misses if engine == "values" else races

    @property
    def missed(self) -> set[Key]:
        missed = self._expected(self.engine) - self.found
        if self.values_found is not None:
            missed |= self._expected("values") - self.values_found
        return missed

    @property
    def false_alarms(self) -> set[Key]:
        alarms = self.found - self._expected(self.engine)
        if self.values_found is not None:
            alarms |= self.values_found - self._expected("values")
        return alarms

    @property
    def missing_warnings(self) -> set[str]:
        """The manifest's warnings are the FSM engine's notices."""
        if self.engine == "values":
            return set()
        return set(self.case.warnings) - self.warnings

    @property
    def ok(self) -> bool:
        return not (self.error or self.missed or self.false_alarms or self.missing_warnings)


def load_values_misses(directory: Path) -> dict[str, set[Key]]:
    """The documented values-engine misses of a suite, by case name (values.toml)."""
    path = directory / "values.toml"
    if not path.is_file():
        return {}
    out: dict[str, set[Key]] = {}
    for i, raw in enumerate(load_toml(path).get("miss", [])):
        where = f"{path}: miss[{i}]"
        lines, kind, space = raw.get("lines"), raw.get("kind"), raw.get("space")
        if (not isinstance(raw.get("case"), str) or not isinstance(lines, list)
                or len(lines) != 2 or kind not in KINDS or space not in ("global", "shared")
                or raw.get("class") not in REASONS or not raw.get("why")):  # fmt: skip
            raise SpecError(f"{where}: expected case, lines = [a, b], kind, space, class "
                            f"(one of {', '.join(REASONS)}) and why")  # fmt: skip
        out.setdefault(raw["case"], set()).add(((min(lines), max(lines)), kind, space))
    return out


def load_manifest(directory: Path) -> list[Case]:
    path = directory / "manifest.toml"
    doc = load_toml(path)
    cases = []
    misses = load_values_misses(directory)
    for i, raw in enumerate(doc.get("case", [])):
        where = f"{path}: case[{i}]"
        name = raw.get("name", f"#{i}")
        launch = parse_launch(raw, where, directory, extra=CASE_KEYS)
        expect = raw.get("expect")
        if expect not in ("race", "race-free"):
            raise SpecError(f"{where}.expect: expected 'race' or 'race-free', got {expect!r}")
        races = set()
        for j, r in enumerate(raw.get("races", [])):
            lines, kind, space = r.get("lines"), r.get("kind"), r.get("space")
            if (
                not isinstance(lines, list)
                or len(lines) != 2
                or kind not in KINDS
                or space not in ("global", "shared")
            ):
                raise SpecError(f"{where}.races[{j}]: expected lines = [a, b], kind in "
                                f"{KINDS}, space global or shared")  # fmt: skip
            races.add(((min(lines), max(lines)), kind, space))
        if (expect == "race") != bool(races):
            raise SpecError(f"{where}: expect = {expect!r} does not match races = {races}")
        file = directory / raw.get("file", "")
        if not file.is_file():
            raise SpecError(f"{where}.file: no such file {file}")
        documented = misses.pop(name, set())
        if documented - races:
            raise SpecError(f"{directory / 'values.toml'}: case {name}: documented misses "
                            f"{sorted(documented - races)} are not races of the manifest")
        cases.append(Case(name, file, raw.get("description", ""), expect, frozenset(races),
                          frozenset(raw.get("warnings", [])), launch,
                          frozenset(documented)))  # fmt: skip
    if misses:
        raise SpecError(f"{directory / 'values.toml'}: no such case(s): {', '.join(misses)}")
    if not cases:
        raise SpecError(f"{path}: no [[case]] tables")
    return cases


def run_case(case: Case, checkers: dict[Path, Any], backend: str, config: Config,
             engine: str = "fsm", include_dirs: list[str] | None = None,
             defines: dict[str, str | int | None] | None = None) -> Result:  # fmt: skip
    """One case; a case that fails is a row of the table, but a `ToolFailure` (no
    compiler, no device) stops the run: it would fail every case alike."""
    result = Result(case, engine=engine)
    start = time.perf_counter()
    try:
        if case.file not in checkers:
            checkers[case.file] = make_checker(engine, case.file.read_text(), str(case.file),
                                               config, backend, include_dirs, False,
                                               defines)  # fmt: skip
        checker = checkers[case.file]
        spec = case.launch
        args = spec.build_args(checker.tables.kernel(spec.kernel).params, case.name)
        launch = checker.launch(spec.kernel, spec.config, args)
        for r in launch.races:
            if engine == "both" and r.engine == "values":
                result.values_found = result.values_found or set()
                result.values_found.add((r.lines(), r.kind, r.space))
            else:
                result.found.add((r.lines(), r.kind, r.space))
        if engine == "both":
            result.values_found = result.values_found or set()
            result.disagreements = checker.last_disagreements
        result.warnings = {n.code for n in launch.notices}
    except ToolFailure:
        raise
    except Exception as exc:  # a failing case is a row of the table, never a crash
        result.error = f"{type(exc).__name__}: {exc}"
    result.seconds = time.perf_counter() - start
    return result


def run(
    directory: Path,
    backend: str = "auto",
    config: Config | None = None,
    engine: str = "fsm",
    include_dirs: list[str] | None = None,
    defines: dict[str, str | int | None] | None = None,
) -> list[Result]:
    config = config or Config()
    checkers: dict[Path, Any] = {}
    return [run_case(c, checkers, backend, config, engine, include_dirs, defines)
            for c in load_manifest(directory)]  # fmt: skip


def _fmt(keys: set[Key]) -> str:
    return ", ".join(f"{a}-{b} {k} {s}" for (a, b), k, s in sorted(keys))


def table(results: list[Result]) -> str:
    """One row per case, then the totals."""
    width = max(len(r.case.name) for r in results)
    out = [f"{'case':<{width}}  {'expect':<9}  {'found':>5}  {'result':<6}  details"]
    for r in results:
        status = "ok" if r.ok else "ERROR" if r.error else "FAIL"
        details = r.error
        if r.missed:
            details += f"missed: {_fmt(r.missed)} "
        if r.false_alarms:
            details += f"false alarm: {_fmt(r.false_alarms)} "
        if r.missing_warnings:
            details += f"missing warning: {', '.join(sorted(r.missing_warnings))} "
        if r.engine != "fsm" and r.case.values_misses:
            details += f"values engine misses (documented): {_fmt(set(r.case.values_misses))}"
        out.append(f"{r.case.name:<{width}}  {r.case.expect:<9}  {len(r.found):>5}  "
                   f"{status:<6}  {details.strip()}")  # fmt: skip
    passed = sum(r.ok for r in results)
    misses = sum(len(r.missed) for r in results)
    alarms = sum(len(r.false_alarms) for r in results)
    errors = sum(bool(r.error) for r in results)
    out.append(f"{passed}/{len(results)} cases pass; {misses} missed race(s), {alarms} false "
               f"alarm(s), {errors} error(s)")  # fmt: skip
    return "\n".join(out) + "\n"


def to_json(results: list[Result]) -> str:
    """The suite's results as JSON (docs/report-format.md): the totals, then one entry
    per case."""

    def keys(ks: set[Key]) -> list[dict[str, object]]:
        return [{"lines": list(lines), "kind": k, "space": sp} for lines, k, sp in sorted(ks)]

    cases = [{
        "name": r.case.name, "file": str(r.case.file), "expect": r.case.expect, "ok": r.ok,
        "found": keys(r.found), "missed": keys(r.missed), "false_alarms": keys(r.false_alarms),
        "missing_warnings": sorted(r.missing_warnings), "error": r.error or None,
        "seconds": r.seconds,
    } for r in results]  # fmt: skip
    passed = sum(r.ok for r in results)
    doc = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "hirace", "version": hirace_py.__version__},
        "mode": "litmus",
        "summary": {"passed": passed, "total": len(results),
                    "exit_status": int(ExitCode.CLEAN if passed == len(results)
                                       else ExitCode.FINDINGS)},
        "cases": cases,
    }  # fmt: skip
    return json.dumps(doc, indent=2) + "\n"
