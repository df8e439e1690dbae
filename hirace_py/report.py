"""Race reports: the model, and its text, JSON and SARIF 2.1.0 renderings.

One `Report` for every mode: a single-kernel check (`hirace check FILE`) and a
whole program (`hirace run`, `hirace report DUMP`) both produce one, from the
same interpretation of the device's records (hirace_py.interpret). The JSON
rendering is versioned (`SCHEMA_VERSION`) and documented in
docs/report-format.md, with a JSON Schema in docs/report.schema.json.

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
from pathlib import Path
from typing import Any

import hirace_py
from hirace_py.errors import ExitCode
from hirace_py.instrument.model import Site
from hirace_py.instrument.model import Warning as InstrumentWarning
from hirace_py.profile import PATTERN_TEXT, PATTERNS, Profile, ProfileFinding, size_text

KINDS = ("read-write", "write-write", "atomic-plain")
SCHEMA_VERSION = 1
"""Version of the JSON report; a change that breaks readers bumps it."""
REPORT_DOC = Path(hirace_py.__file__).resolve().parent.parent / "docs" / "report-format.md"
"""The report format's documentation, where hirace runs from its repository; SARIF's
informationUri points at it (hirace has no public home page to point at instead)."""
ATOMIC = ("BA", "GA", "BL", "GL")


def race_kind(a: str, b: str) -> str:
    """Kind of a race between actions a and b (R, W, BA, GA, BL, GL), as docs/semantics.md section 4
    names them: any race involving an atomic is atomic-plain, including two atomics
    whose scopes do not cover both threads."""
    if a in ATOMIC or b in ATOMIC:
        return "atomic-plain"
    if a == "W" and b == "W":
        return "write-write"
    return "read-write"


ACTION_WORDS = {"R": "Read", "W": "Write", "BA": "Block-scope atomic", "GA": "Device-scope atomic",
                "BL": "Block-scope atomic load", "GL": "Device-scope atomic load"}


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

    def function(self) -> str:
        """The function the access is in, as `in NAME`, or '' if unknown."""
        return f" in {self.site.function}" if self.site is not None and self.site.function else ""

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
class BoundsFinding:
    """Accesses of one site just outside one allocation (out of bounds): the first
    one seen, where it fell, and how many there were. `performed` is false when
    they were not made (HIRACE_BOUNDS=continue: reads gave 0)."""

    kernel: str
    variable: str
    size: int
    """Bytes of the allocation."""
    access: Access
    offset: int
    """Byte offset of the first access from the allocation's start (negative: before it)."""
    count: int
    performed: bool

    @property
    def action(self) -> str:
        return self.access.site.action if self.access.site else "?"

    def to_json(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "variable": self.variable, "size": self.size,
                "access": self.access.to_json(), "offset": self.offset, "count": self.count,
                "performed": self.performed}  # fmt: skip

    def text(self) -> list[str]:
        word = ACTION_WORDS.get(self.action, "Access")
        what = "" if self.performed else (" (not performed: reads gave 0)" if self.action == "R"
                                          else " (not performed)")  # fmt: skip
        past = self.offset - self.size
        where = (f"{past} byte(s) past its end" if past >= 0
                 else f"{-self.offset} byte(s) before its start")  # fmt: skip
        a = self.access
        out = [
            f"========= Out-of-bounds {word} of '{self.variable}' in kernel {self.kernel}, "
            f"{self.count} access(es){what}",
            f"=========     at {a.where()}{a.function()} by thread {a.thread} in block "
            f"{a.block}: byte offset {self.offset} of a {self.size}-byte allocation ({where})",
        ]
        if a.source_line:
            out.append(f"=========         {a.source_line.strip()}")
        return out  # fmt: skip


HOST_KINDS = {
    "host-device-race": "two operations on one buffer, at least one a write, unordered "
                        "by streams, events or synchronisation",
    "uninitialised-read": "device memory read before anything wrote it",
    "stale-host-data": "the host read data whose device copy changed after the last "
                       "transfer between them",
    "stale-device-data": "a kernel read data whose host copy changed after the last "
                         "transfer between them",
    "out-of-bounds-copy": "a copy or memset past the end of an allocation",
    "bad-free": "a free of a pointer that is not a live allocation of its kind",
    "leak": "an allocation still live when the program exited",
    "ignored-error": "a CUDA call failed and the program never looked at its error",
}  # fmt: skip
"""The host-device finding kinds (docs/findings.md, docs/semantics.md section 6)."""
HOST_TITLES = {
    "host-device-race": "Host-device race",
    "uninitialised-read": "Uninitialised read",
    "stale-host-data": "Stale host data",
    "stale-device-data": "Stale device data",
    "out-of-bounds-copy": "Out-of-bounds copy",
    "bad-free": "Bad free",
    "leak": "Leak",
    "ignored-error": "Ignored error",
}


@dataclass(frozen=True)
class HostSide:
    """One operation a host-device finding names: the API call, kernel launch or host
    access, where, by which host thread, and on which stream (None: on the host)."""

    what: str
    file: str
    line: int
    column: int
    function: str
    thread: int
    stream: str | None
    source_line: str = ""

    def where(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def text(self) -> str:
        on = f"on the {self.stream}" if self.stream else f"on host thread {self.thread}"
        fn = f" in {self.function}" if self.function else ""
        return f"{self.what} at {self.where()}{fn} {on}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class HostFinding:
    """A host-device finding: its kind, the buffer and the byte range of it concerned
    (offsets from the buffer's start; `unit` says whether the range is exact to the
    byte or to the shadow unit), the earlier operation involved (None where there is
    none) and the one where it was found, and how many occurrences were merged."""

    kind: str
    buffer: str
    size: int
    """Bytes of the buffer; 0 where it is host memory hirace did not see allocated."""
    lo: int
    hi: int
    unit: str
    first: HostSide | None
    second: HostSide
    message: str
    count: int = 1

    def text(self) -> list[str]:
        title = HOST_TITLES[self.kind]
        if self.buffer:
            of = f" of {self.size}" if self.size else ""
            unit = " (to the shadow unit)" if self.unit == "shadow unit" else ""
            title += f" on '{self.buffer}' bytes [{self.lo}, {self.hi}){of}{unit}"
        out = [f"========= {title}: {self.message}"]
        if self.first is not None:
            out.append(f"=========     Earlier {self.first.text()}")
            if self.first.source_line:
                out.append(f"=========         {self.first.source_line.strip()}")
        out.append(f"=========     {'Then' if self.first else 'At'} {self.second.text()}")
        if self.second.source_line:
            out.append(f"=========         {self.second.source_line.strip()}")
        return out

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "buffer": self.buffer, "size": self.size, "lo": self.lo,
                "hi": self.hi, "unit": self.unit,
                "first": None if self.first is None else self.first.to_json(),
                "second": self.second.to_json(), "message": self.message,
                "count": self.count}  # fmt: skip


@dataclass(frozen=True)
class Notice:
    """Something the run could not check, counted: never dropped silently."""

    code: str
    message: str
    count: int = 0


@dataclass
class LaunchReport:
    """One launch: where it ran, its races, and what it could not check.

    `seconds` is None where it was not measured (whole programs)."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    backend: str
    seconds: float | None
    races: list[Race] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    shadow_bytes: int = 0
    stdout: str = ""
    error: str | None = None
    """Why the launch stopped early (a fault, the time limit); its races are those before."""
    bounds: list[BoundsFinding] = field(default_factory=list)
    """Out-of-bounds accesses (whole programs; `hirace check` stops at the first)."""

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
            "bounds": [b.to_json() for b in self.bounds],
            "error": self.error,
        }


@dataclass
class Report:
    """All launches of one check or program run, with the instrumenter's warnings.

    The same whatever produced it (a kernel check, a whole program).
    `pairs` says how racing pairs were listed: "exact" (replayed) or "last"
    (one pair per element, from the shadow word); `notices` what the run as a
    whole could not check (per-launch ones are in each launch)."""

    filename: str
    launches: list[LaunchReport] = field(default_factory=list)
    warnings: list[InstrumentWarning] = field(default_factory=list)
    pairs: str = "exact"
    notices: list[Notice] = field(default_factory=list)
    host: list[HostFinding] = field(default_factory=list)
    """Host-device findings of a whole program (docs/findings.md)."""
    profile: Profile | None = None
    """The transfer profile, for a program run with --profile (hirace_py.profile)."""

    @property
    def races(self) -> list[Race]:
        return [r for launch in self.launches for r in launch.races]

    @property
    def exit_status(self) -> ExitCode:
        """FINDINGS when there were races, out-of-bounds accesses, host-device findings
        or profile findings."""
        bounds = any(launch.bounds for launch in self.launches)
        wasted = self.profile is not None and bool(self.profile.findings)
        findings = self.races or bounds or self.host or wasted
        return ExitCode.FINDINGS if findings else ExitCode.CLEAN

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "hirace", "version": hirace_py.__version__},
            "file": self.filename,
            "pairs": self.pairs,
            "summary": {
                "races": len(self.races),
                "bounds": sum(len(launch.bounds) for launch in self.launches),
                "launches": len(self.launches),
                "host": len(self.host),
                **({"profile": len(self.profile.findings)} if self.profile else {}),
                "exit_status": int(self.exit_status),
            },
            "warnings": [asdict(w) for w in self.warnings],
            "notices": [asdict(n) for n in self.notices],
            "launches": [launch.to_json() for launch in self.launches],
            "host": [f.to_json() for f in self.host],
            **({"profile": self.profile.to_json()} if self.profile else {}),
        }


def _access_text(label: str, action: str, a: Access) -> list[str]:
    out = [f"=========     {label} {ACTION_WORDS.get(action, action)} at {a.where()}"
           f"{a.function()} by thread {a.thread} in block {a.block}"]  # fmt: skip
    if a.source_line:
        out.append(f"=========         {a.source_line.strip()}")
    return out


def to_text(report: Report) -> str:
    """Human-readable report in the spirit of compute-sanitizer's racecheck."""
    out = [f"========= HIRACE {hirace_py.__version__}: {report.filename}"]
    for w in report.warnings:
        out.append(f"========= {w}")
    for launch in report.launches:
        where = f"on {launch.backend}"
        out.append(
            f"========= Launch {launch.kernel} grid {launch.grid} block {launch.block} "
            f"{where}: {len(launch.races)} race(s)"
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
        for b in launch.bounds:
            out += b.text()
        for n in launch.notices:
            out.append(f"========= Warning [{n.code}]: {n.message}")
        if launch.error:
            out.append(f"========= Error: {launch.error}")
    for f in report.host:
        out += f.text()
    for n in report.notices:
        out.append(f"========= Warning [{n.code}]: {n.message}")
    if report.profile is not None:
        out += _profile_text(report.profile)
    total = len(report.races)
    out.append(f"========= RACE SUMMARY: {total} race(s) in {len(report.launches)} launch(es)")
    if report.host:
        out.append(f"========= HOST-DEVICE SUMMARY: {len(report.host)} finding(s)")
    return "\n".join(out) + "\n"


def _seconds_text(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} us"


def _profile_text(p: Profile) -> list[str]:
    """The transfer profile: each finding with its call sites, then a line per pattern."""
    how = "measured" if any(f.measured for f in p.findings) else "bandwidth model"
    moved = size_text(p.transfer_bytes)
    out = [f"========= TRANSFER PROFILE: {p.transfers} transfer(s) of {moved}"]
    for f in p.findings:
        out.append(f"========= {f.pattern}: {f.message}; saving ~{_seconds_text(f.seconds)}")
        out.append(f"=========     at {f.site.where() if f.site else 'an unrecorded site'}"
                   f"{' in ' + f.site.function if f.site and f.site.function else ''}")  # fmt: skip
        for site, role in f.related:
            out.append(f"=========     {role} at {site.where() if site else 'an unrecorded site'}")
    if p.unhashed:
        out.append(f"========= Warning [unhashed]: {p.unhashed} transfer(s) could not be hashed "
                   "in place and were not compared")  # fmt: skip
    if not p.kernels_instrumented and p.uninstrumented_launches:
        out.append(f"========= Note: kernels not instrumented ({p.uninstrumented_launches} "
                   "launch(es)): a kernel is taken to read the allocations its pointer arguments "
                   "point into (and to write them unless the parameter points to const); use "
                   "--kernels for what kernels really read")  # fmt: skip
        if p.opaque_launches:
            out.append(f"========= Note: {p.opaque_launches} of them may reach memory through "
                       "pointers held in memory (a struct holding pointers, a pointer to a "
                       "pointer or to void): taken to read and write every allocation")  # fmt: skip
    for pattern, total in p.summary().items():
        saving = _seconds_text(total["seconds"])
        out.append(f"========= PROFILE SUMMARY {pattern}: {total['findings']} finding(s), "
                   f"{total['calls']} call(s), {size_text(total['bytes'])}, est. saving "
                   f"{saving} ({how}): {PATTERN_TEXT[pattern]}")  # fmt: skip
    return out


def to_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


def _uri(file: str) -> tuple[str, str | None]:
    """A SARIF artifact URI for `file`: relative to the current directory (with
    uriBaseId SRCROOT) when it is inside it, else an absolute file URI."""
    path = Path(file)
    absolute = path.resolve()
    root = Path.cwd().resolve()
    if absolute.is_relative_to(root):
        return absolute.relative_to(root).as_posix(), "SRCROOT"
    return absolute.as_uri(), None


def _sarif_location(a: Access, message: str, ident: int) -> dict[str, Any]:
    if a.site is None:
        return {"id": ident, "message": {"text": message + " (site not recorded)"}}
    uri, base = _uri(a.site.file)
    artifact: dict[str, Any] = {"uri": uri, **({"uriBaseId": base} if base else {})}
    location: dict[str, Any] = {
        "id": ident,
        "physicalLocation": {
            "artifactLocation": artifact,
            "region": {
                "startLine": a.site.line,
                "startColumn": a.site.column,
                **({"snippet": {"text": a.source_line}} if a.source_line else {}),
            },
        },
        "message": {"text": message},
    }
    if a.site.function:
        location["logicalLocations"] = [{"name": a.site.function, "kind": "function"}]
    return location


def _host_location(side: HostSide, message: str, ident: int) -> dict[str, Any]:
    uri, base = _uri(side.file)
    location: dict[str, Any] = {
        "id": ident,
        "physicalLocation": {
            "artifactLocation": {"uri": uri, **({"uriBaseId": base} if base else {})},
            "region": {"startLine": max(side.line, 1), **({"startColumn": side.column}
                                                          if side.column else {}),
                       **({"snippet": {"text": side.source_line}} if side.source_line else {})},
        },
        "message": {"text": message},
    }  # fmt: skip
    if side.function:
        location["logicalLocations"] = [{"name": side.function, "kind": "function"}]
    return location


def _notification(level: str, text: str, file: str = "", line: int = 0,
                  column: int = 0) -> dict[str, Any]:  # fmt: skip
    note: dict[str, Any] = {"level": level, "message": {"text": text}}
    if file:
        uri, base = _uri(file)
        region = {"startLine": line, **({"startColumn": column} if column else {})}
        note["locations"] = [{"physicalLocation": {
            "artifactLocation": {"uri": uri, **({"uriBaseId": base} if base else {})},
            **({"region": region} if line else {}),
        }}]  # fmt: skip
    return note


def _call_location(site: object, message: str, ident: int) -> dict[str, Any]:
    from hirace_py.host_events import CallSite

    if not isinstance(site, CallSite):
        return {"id": ident, "message": {"text": message + " (site not recorded)"}}
    uri, base = _uri(site.file)
    location: dict[str, Any] = {
        "id": ident,
        "physicalLocation": {
            "artifactLocation": {"uri": uri, **({"uriBaseId": base} if base else {})},
            "region": {"startLine": site.line, "startColumn": site.column},
        },
        "message": {"text": message},
    }
    if site.function:
        location["logicalLocations"] = [{"name": site.function, "kind": "function"}]
    return location


def _profile_result(f: ProfileFinding, rule_ids: list[str]) -> dict[str, Any]:
    return {
        "ruleId": f.pattern, "ruleIndex": rule_ids.index(f.pattern), "level": "warning",
        "message": {"text": f"{f.message}; estimated saving {_seconds_text(f.seconds)}"},
        "locations": [_call_location(f.site, f.pattern, 0)],
        "relatedLocations": [_call_location(site, role, i + 1)
                             for i, (site, role) in enumerate(f.related)],
        "properties": {"count": f.count, "bytes": f.bytes, "seconds": f.seconds,
                       "measured": f.measured, "variable": f.variable},
    }  # fmt: skip


def to_sarif(report: Report) -> str:
    """SARIF 2.1.0: one result per race, at the access that completed it, with the
    earlier access in relatedLocations; what was not instrumented or not checked
    as tool notifications."""
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
                    f"{r.kernel}: {second.lower()} at {r.second.where()}{r.second.function()} "
                    f"by thread {r.second.thread} block {r.second.block} races with the "
                    f"[earlier {first.lower()}](1) at {r.first.where()}{r.first.function()} "
                    f"by thread {r.first.thread} block {r.first.block}; "
                    f"{r.count} element(s)."
                    + ("" if r.engine == "fsm" else f" Found by the {r.engine} engine.")
                )},
                "locations": [_sarif_location(r.second, f"{second} completing the race", 0)],
                "relatedLocations": [_sarif_location(r.first, f"earlier {first.lower()}", 1)],
                "properties": {"count": r.count, "exact": r.exact, "element": r.element,
                               "variable": r.variable, "space": r.space, "engine": r.engine},
            })  # fmt: skip
    rules.append({"id": "out-of-bounds",
                  "shortDescription": {"text": "access just outside an allocation"},
                  "defaultConfiguration": {"level": "error"}})  # fmt: skip
    for launch in report.launches:
        for b in launch.bounds:
            word = ACTION_WORDS.get(b.action, "Access").lower()
            text = "\n".join(line.removeprefix("=========").strip() for line in b.text()[:2])
            results.append({
                "ruleId": "out-of-bounds", "ruleIndex": len(KINDS), "level": "error",
                "message": {"text": text},
                "locations": [_sarif_location(b.access, f"out-of-bounds {word}", 0)],
                "properties": {"count": b.count, "offset": b.offset, "size": b.size,
                               "variable": b.variable, "performed": b.performed},
            })  # fmt: skip
    for f in report.host:
        if f.kind not in (r["id"] for r in rules):
            rules.append({"id": f.kind, "shortDescription": {"text": HOST_KINDS[f.kind]},
                          "defaultConfiguration": {"level": "error"}})  # fmt: skip
        result: dict[str, Any] = {
            "ruleId": f.kind,
            "ruleIndex": [r["id"] for r in rules].index(f.kind),
            "level": "error",
            "message": {"text": "\n".join(line.removeprefix("=========").strip()
                                          for line in f.text())},
            "locations": [_host_location(f.second, f.second.what, 0)],
            "properties": {"buffer": f.buffer, "size": f.size, "lo": f.lo, "hi": f.hi,
                           "unit": f.unit, "count": f.count},
        }  # fmt: skip
        if f.first is not None:
            result["relatedLocations"] = [_host_location(f.first, f"earlier {f.first.what}", 1)]
        results.append(result)
    if report.profile is not None:
        for pattern in PATTERNS:
            rules.append({"id": pattern, "shortDescription": {"text": PATTERN_TEXT[pattern]},
                          "defaultConfiguration": {"level": "warning"}})  # fmt: skip
        results += [_profile_result(f, [r["id"] for r in rules]) for f in report.profile.findings]
    notifications = [_notification("warning", f"[{w.code}] {w.message}", w.file, w.line,
                                   w.column) for w in report.warnings]  # fmt: skip
    for launch in report.launches:
        for n in launch.notices:
            notifications.append(_notification("warning", f"[{n.code}] launch {launch.kernel}: "
                                               f"{n.message}"))  # fmt: skip
        if launch.error:
            notifications.append(_notification("error", f"launch {launch.kernel}: {launch.error}"))
    notifications += [_notification("warning", f"[{n.code}] {n.message}") for n in report.notices]
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "hirace", "version": hirace_py.__version__, "rules": rules,
            **({"informationUri": REPORT_DOC.as_uri()} if REPORT_DOC.is_file() else {}),
        }},
        "originalUriBaseIds": {"SRCROOT": {"uri": Path.cwd().resolve().as_uri() + "/"}},
        "invocations": [{
            "executionSuccessful": not any(launch.error for launch in report.launches),
            "toolExecutionNotifications": notifications,
        }],
        "results": results,
    }  # fmt: skip
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    }
    return json.dumps(doc, indent=2) + "\n"


FORMATS = {"text": to_text, "json": to_json, "sarif": to_sarif}
