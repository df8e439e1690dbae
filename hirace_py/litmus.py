"""Run a litmus suite against its manifest: every expected race found, nothing else.

A manifest (`kernels/manifest.toml`, schema in docs/launch-spec.md) lists
cases: a kernel launch and the races it must produce, as unordered pairs of
source lines with a kind and a memory space. A case passes when the set of
reported (line pair, kind, space) equals the expected set: a missing entry is
a miss, an extra one a false alarm.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from hirace_py.checker import Checker
from hirace_py.config import Config
from hirace_py.launchspec import SpecError, load_toml, parse_launch
from hirace_py.report import KINDS

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


@dataclass
class Result:
    case: Case
    found: set[Key] = field(default_factory=set)
    warnings: set[str] = field(default_factory=set)
    error: str = ""
    seconds: float = 0.0

    @property
    def missed(self) -> set[Key]:
        return set(self.case.races) - self.found

    @property
    def false_alarms(self) -> set[Key]:
        return self.found - set(self.case.races)

    @property
    def missing_warnings(self) -> set[str]:
        return set(self.case.warnings) - self.warnings

    @property
    def ok(self) -> bool:
        return not (self.error or self.missed or self.false_alarms or self.missing_warnings)


def load_manifest(directory: Path) -> list[Case]:
    path = directory / "manifest.toml"
    doc = load_toml(path)
    cases = []
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
        cases.append(Case(name, file, raw.get("description", ""), expect, frozenset(races),
                          frozenset(raw.get("warnings", [])), launch))  # fmt: skip
    if not cases:
        raise SpecError(f"{path}: no [[case]] tables")
    return cases


def run_case(case: Case, checkers: dict[Path, Checker], backend: str, config: Config) -> Result:
    result = Result(case)
    start = time.perf_counter()
    try:
        if case.file not in checkers:
            checkers[case.file] = Checker(case.file.read_text(), str(case.file), config, backend)
        checker = checkers[case.file]
        spec = case.launch
        params = [p.name for p in checker.tables.kernel(spec.kernel).params]
        args = spec.build_args(params, case.name)
        launch = checker.launch(spec.kernel, spec.grid, spec.block, args, spec.shared_bytes,
                                spec.seed, spec.schedule)  # fmt: skip
        for r in launch.races:
            result.found.add((r.lines(), r.kind, r.space))
        result.warnings = {n.code for n in launch.notices}
    except Exception as exc:  # a failing case is a row of the table, never a crash
        result.error = f"{type(exc).__name__}: {exc}"
    result.seconds = time.perf_counter() - start
    return result


def run(directory: Path, backend: str = "auto", config: Config | None = None) -> list[Result]:
    config = config or Config()
    checkers: dict[Path, Checker] = {}
    return [run_case(c, checkers, backend, config) for c in load_manifest(directory)]


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
            details += f"missing warning: {', '.join(sorted(r.missing_warnings))}"
        out.append(f"{r.case.name:<{width}}  {r.case.expect:<9}  {len(r.found):>5}  "
                   f"{status:<6}  {details.strip()}")  # fmt: skip
    passed = sum(r.ok for r in results)
    misses = sum(len(r.missed) for r in results)
    alarms = sum(len(r.false_alarms) for r in results)
    errors = sum(bool(r.error) for r in results)
    out.append(f"{passed}/{len(results)} cases pass; {misses} missed race(s), {alarms} false "
               f"alarm(s), {errors} error(s)")  # fmt: skip
    return "\n".join(out) + "\n"
