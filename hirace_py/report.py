"""Race reports: the model, and its text, JSON and SARIF 2.1.0 renderings.

A `Race` is one pair of access sites that raced, with how many elements did
so. `first` is the earlier access and `second` the one that completed the
race. When the pair comes from the shadow word alone, `first` is the last
access to the element before the racing one; if that access does not itself
conflict with the racing one, the real partner is an earlier access the FSM
summarised, `exact` is False, and the report says so rather than guess.

The exit status of a report is `Report.exit_status` (hirace_py.errors.ExitCode).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

import hirace_py
from hirace_py.errors import ExitCode
from hirace_py.instrument.model import Site
from hirace_py.instrument.model import Warning as InstrumentWarning

KINDS = ("read-write", "write-write", "atomic-plain")
ATOMIC = ("BA", "GA")


def race_kind(a: str, b: str) -> str:
    """Kind of a race between actions a and b (R, W, BA, GA), as docs/semantics.md section 4
    names them: any race involving an atomic is atomic-plain, including two atomics
    whose scopes do not cover both threads."""
    if a in ATOMIC or b in ATOMIC:
        return "atomic-plain"
    if a == "W" and b == "W":
        return "write-write"
    return "read-write"


ACTION_WORDS = {"R": "Read", "W": "Write", "BA": "Block-scope atomic", "GA": "Device-scope atomic"}


@dataclass(frozen=True)
class Access:
    """One side of a race: where (None if the site was not recorded) and by whom."""

    site: Site | None
    thread: tuple[int, int, int]
    block: tuple[int, int, int]
    source_line: str = ""

    def where(self) -> str:
        if self.site is None:
            return "an unrecorded site"
        return f"{self.site.file}:{self.site.line}:{self.site.column}"

    def to_json(self) -> dict[str, Any]:
        return {
            "site": None if self.site is None else asdict(self.site),
            "thread": list(self.thread),
            "block": list(self.block),
            "source": self.source_line,
        }


@dataclass(frozen=True)
class Race:
    kind: str
    space: str
    variable: str
    kernel: str
    first: Access
    second: Access
    count: int
    element: int
    exact: bool = True
    engine: str = "fsm"
    """Which engine found it: "fsm" (shadow words) or "values" (docs/engines.md)."""

    def lines(self) -> tuple[int, int]:
        a = self.first.site.line if self.first.site else 0
        b = self.second.site.line if self.second.site else 0
        return (min(a, b), max(a, b))

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "space": self.space,
            "variable": self.variable,
            "kernel": self.kernel,
            "first": self.first.to_json(),
            "second": self.second.to_json(),
            "count": self.count,
            "element": self.element,
            "exact": self.exact,
            "engine": self.engine,
        }


@dataclass(frozen=True)
class Notice:
    """Something the run could not check, counted: never dropped silently."""

    code: str
    message: str
    count: int = 0


@dataclass
class LaunchReport:
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    backend: str
    seconds: float
    races: list[Race] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    shadow_bytes: int = 0
    stdout: str = ""
    error: str | None = None
    """Why the launch stopped early (a fault, the time limit); its races are those before."""

    def to_json(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "grid": list(self.grid),
            "block": list(self.block),
            "shared_bytes": self.shared_bytes,
            "backend": self.backend,
            "seconds": self.seconds,
            "shadow_bytes": self.shadow_bytes,
            "races": [r.to_json() for r in self.races],
            "notices": [asdict(n) for n in self.notices],
            "counters": self.counters,
            "error": self.error,
        }


@dataclass
class Report:
    """All launches of one check, with the instrumenter's warnings."""

    filename: str
    launches: list[LaunchReport] = field(default_factory=list)
    warnings: list[InstrumentWarning] = field(default_factory=list)

    @property
    def races(self) -> list[Race]:
        return [r for launch in self.launches for r in launch.races]

    @property
    def exit_status(self) -> ExitCode:
        return ExitCode.FINDINGS if self.races else ExitCode.CLEAN

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": "hirace",
            "version": hirace_py.__version__,
            "file": self.filename,
            "launches": [launch.to_json() for launch in self.launches],
            "warnings": [asdict(w) for w in self.warnings],
            "races": len(self.races),
        }


def _access_text(label: str, action: str, a: Access) -> list[str]:
    out = [f"=========     {label} {ACTION_WORDS.get(action, action)} at {a.where()}"
           f" by thread {a.thread} in block {a.block}"]  # fmt: skip
    if a.source_line:
        out.append(f"=========         {a.source_line.strip()}")
    return out


def to_text(report: Report) -> str:
    """Human-readable report in the spirit of compute-sanitizer's racecheck."""
    out = [f"========= HIRACE {hirace_py.__version__}: {report.filename}"]
    for w in report.warnings:
        out.append(f"========= {w}")
    for launch in report.launches:
        out.append(
            f"========= Launch {launch.kernel} grid {launch.grid} block {launch.block} "
            f"on {launch.backend}: {len(launch.races)} race(s)"
        )
        for r in launch.races:
            found_by = "" if r.engine == "fsm" else f" [{r.engine} engine]"
            out.append(
                f"========= Race ({r.kind}){found_by} on {r.space} memory: '{r.variable}' element "
                f"{r.element}, {r.count} element(s) with this pair of accesses"
            )
            first_action = r.first.site.action if r.first.site else "?"
            out += _access_text("Earlier", first_action, r.first)
            out += _access_text("Racing ", r.second.site.action if r.second.site else "?",
                                r.second)  # fmt: skip
            if not r.exact:
                out.append(
                    "=========     (the earlier access shown is the last one before the race; "
                    "the access it races with came before it, unordered with the racing access)"
                )
        for n in launch.notices:
            out.append(f"========= Warning [{n.code}]: {n.message}")
    total = len(report.races)
    out.append(f"========= RACE SUMMARY: {total} race(s) in {len(report.launches)} launch(es)")
    return "\n".join(out) + "\n"


def to_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


def _sarif_location(a: Access, message: str) -> dict[str, Any]:
    if a.site is None:
        return {"message": {"text": message + " (site not recorded)"}}
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": a.site.file},
            "region": {
                "startLine": a.site.line,
                "startColumn": a.site.column,
                **({"snippet": {"text": a.source_line}} if a.source_line else {}),
            },
        },
        "message": {"text": message},
    }


def to_sarif(report: Report) -> str:
    """SARIF 2.1.0: one result per race, with both access locations."""
    rules = [
        {"id": kind, "shortDescription": {"text": f"{kind} data race"},
         "defaultConfiguration": {"level": "error"}}
        for kind in KINDS
    ]  # fmt: skip
    results = []
    for launch in report.launches:
        for r in launch.races:
            first = ACTION_WORDS.get(r.first.site.action if r.first.site else "", "Access")
            second = ACTION_WORDS.get(r.second.site.action if r.second.site else "", "Access")
            results.append({
                "ruleId": r.kind,
                "ruleIndex": KINDS.index(r.kind),
                "level": "error",
                "message": {"text": (
                    f"Data race ({r.kind}) on {r.space} memory '{r.variable}' in kernel "
                    f"{r.kernel}: {first.lower()} at {r.first.where()} by thread "
                    f"{r.first.thread} block {r.first.block} and {second.lower()} at "
                    f"{r.second.where()} by thread {r.second.thread} block {r.second.block}; "
                    f"{r.count} element(s)."
                )},
                "locations": [
                    _sarif_location(r.second, f"{second} completing the race"),
                    _sarif_location(r.first, f"earlier {first.lower()}"),
                ],
                "properties": {"count": r.count, "exact": r.exact, "element": r.element},
            })  # fmt: skip
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "hirace", "version": hirace_py.__version__,
                "informationUri": "https://example.invalid/hirace", "rules": rules,
            }},
            "results": results,
        }],
    }  # fmt: skip
    return json.dumps(doc, indent=2) + "\n"


FORMATS = {"text": to_text, "json": to_json, "sarif": to_sarif}
