"""One code of a suite, built once as the program it is and run on each input.

A code is built through the whole-program path (`hirace_py.program`): for
the CPU backend (`hirace build --cpu`) or with nvcc where a GPU is usable,
cached by content, so reruns and identical codes build once. Each run starts
the program with the suite's command line (`Settings.args`, a template with
`{input}`, `{threads}` and `{blocks}`) in a scratch directory, and reads:

- the race report the instrumented program dumps at exit (`HIRACE_DUMP`, read
  by `hirace_py.dump`):
  races with both sites, out-of-bounds findings, notices;
- the program's own output: a line matching `Settings.differs` (default: the
  words a driver prints when its results do not match the serial code) or
  `Settings.matches` gives the sequential-comparison column; neither leaves
  it empty ("not compared"), with the reason;
- out-of-bounds accesses the CPU backend stopped a launch at (its
  "kernel ... failed: out-of-bounds" line on stderr), which count as bounds
  findings too.

A run is an error row when the program cannot be built, is killed at the
time limit (CPU time; or at the wall-clock backstop if it waits without using
CPU: `hirace_py.time_limits`), or ends without writing its report (killed by a signal, or
exited through a path that skips the report); a non-zero exit status alone
is not an error (drivers exit 1 when the results differ), it is kept in the
row. A program still launching kernels at `DEADLINE_SHARE` of the time limit,
or making more launches than its limit (`LAUNCH_LIMIT`, or the limit the
suite runner derived for it: `hirace_py.indigo.runner`), is ended at its next
launch by the CPU backend (`HIRACE_DEADLINE`, `HIRACE_LAUNCH_LIMIT`), with its
report: the row is marked `hung` and judged on what ran (a planted livelock
never finishes, and its race must still be judged).
Launches run with exited threads counted as arrived at barriers
(`HIRACE_EXITED_THREADS=arrive`, what current GPUs do).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, fields
from pathlib import Path

from hirace_py import dump
from hirace_py.backends.cpu_program import DEADLINE_EXIT
from hirace_py.config import Config
from hirace_py.errors import HiraceError, ToolFailure
from hirace_py.indigo.results import RunResult
from hirace_py.indigo.suite import Code
from hirace_py.program import BuildOptions, cached_build
from hirace_py.report import Report
from hirace_py.time_limits import backstop, run_with_limits
from hirace_py.values.programs import builds, merge

DEFAULT_ARGS = ("{input}", "{threads}", "{blocks}")
DEFAULT_MATCHES = r"(?i)verification passed|results? match|^all good"
DEFAULT_DIFFERS = r"(?i)verification failed|results? differ|mismatch|^total error"
DEADLINE_SHARE = 0.5
"""The program's own deadline, as a share of the time limit (both CPU time):
the rest is for writing its report and exiting before it would be killed."""
LAUNCH_LIMIT = 2000
"""Kernel launches a run may make unless the suite runner gives it a limit of
its own: a program making more is ended like one past its deadline (a
livelock of short launches would otherwise write a report of thousands of
launches; the codes of a suite on small inputs make tens to hundreds)."""
OUTPUT_KEPT = 4000
"""Characters of a run's stdout and stderr kept in its row (the end of each)."""

# The CPU backend's line for a launch it stopped at an out-of-bounds access
# (docs/programs.md, "Launch failures").
_CPU_BOUNDS = re.compile(
    r"hirace: kernel '(?P<kernel>[^']*)' .*? failed: out-of-bounds (?P<what>read|write) at "
    r"(?P<file>[^:\s]+):(?P<line>\d+) by thread \((?P<thread>[\d,]+)\) in block "
    r"\((?P<block>[\d,]+)\)(?P<rest>[^\[]*)"
)


@dataclass(frozen=True)
class Settings:
    """How every code of a run is built and started."""

    threads: int
    blocks: int
    backend: str
    """'cpu' (hirace build --cpu) or 'gpu' (nvcc)."""
    config: Config
    args: tuple[str, ...] = DEFAULT_ARGS
    include_dirs: tuple[str, ...] = ()
    defines: tuple[tuple[str, str | None], ...] = ()
    timeout: float = 120.0
    """CPU seconds one run may use (also each launch's limit on the CPU backend);
    a run waiting without using CPU is ended at a wall-clock backstop
    (`hirace_py.time_limits`)."""
    matches: str = DEFAULT_MATCHES
    differs: str = DEFAULT_DIFFERS
    engine: str = "fsm"
    """The race engine: "fsm", "values" or "both" (hirace_py.values.programs)."""
    optimize: str = "-Og"
    """Optimisation level of each code's own units on the CPU backend: -Og
    builds about twice as fast as -O2 (docs/performance.md, "Indigo suites")."""

    def command(self, executable: Path, data: Input) -> list[str]:
        values = {"input": str(data.path), "threads": self.threads, "blocks": self.blocks}
        try:
            return [str(executable), *(a.format(**values) for a in self.args)]
        except (KeyError, IndexError, ValueError) as exc:
            raise HiraceError(f"--args {' '.join(self.args)!r}: bad placeholder {exc} "
                              "(use {input}, {threads}, {blocks})") from None  # fmt: skip

    def key(self) -> str:
        """What besides threads, blocks and backend decides a run's result."""
        values = {"args": self.args, "include": self.include_dirs, "defines": self.defines,
                  "timeout": self.timeout, "matches": self.matches, "differs": self.differs,
                  "optimize": self.optimize,
                  "config": {f.name: repr(getattr(self.config, f.name))
                             for f in fields(self.config) if f.name != "source"}}  # fmt: skip
        if self.engine != "fsm":  # (fsm rows keep the keys they had before engines)
            values["engine"] = self.engine
        return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Input:
    """One input file, given to every code's command line as `{input}`."""

    name: str
    """As given on the command line."""
    path: Path
    sha: str
    """SHA-256 of the file: the input's key in the results."""


def load_input(path: Path) -> Input:
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise HiraceError(f"{path}: cannot read input: {exc.strerror}") from None
    return Input(str(path), path.resolve(), digest)


def _why(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text if isinstance(exc, HiraceError) else f"{type(exc).__name__}: {text}"


def _tail(text: str) -> str:
    return text[-OUTPUT_KEPT:]


def race_row(race: dict) -> dict:
    """A race of the report with its sorted line pair, "lines"."""
    first = race["first"]["site"]["line"] if race["first"].get("site") else 0
    second = race["second"]["site"]["line"] if race["second"].get("site") else 0
    return {**race, "lines": [min(first, second), max(first, second)]}


def bound_row(kernel: str, found: dict) -> dict:
    """An out-of-bounds finding of the report, flattened to the row's fields."""
    site = found["access"]["site"] or {}
    return {"kernel": kernel, "allocation": found["variable"], "file": site.get("file", ""),
            "line": site.get("line", 0), "write": site.get("action", "R") != "R",
            "thread": found["access"]["thread"], "block": found["access"]["block"],
            "offset": found["offset"], "size": found["size"], "count": found["count"],
            "performed": found["performed"]}  # fmt: skip


def cpu_bounds(stderr: str) -> list[dict]:
    """Out-of-bounds accesses the CPU backend stopped a launch at."""
    out = []
    for m in _CPU_BOUNDS.finditer(stderr):
        out.append({"kernel": m["kernel"], "write": m["what"] == "write", "file": m["file"],
                    "line": int(m["line"]), "thread": [int(x) for x in m["thread"].split(",")],
                    "block": [int(x) for x in m["block"].split(",")],
                    "message": m.group(0).strip(), "stopped_launch": True})  # fmt: skip
    return out


class CodeRunner:
    """One code, built once; `run` per input.

    Guarantees: `run` never raises for a problem of the code (it returns an
    error row with the reason); `compile_s` is charged to the first run only.
    """

    def __init__(self, code: Code, settings: Settings) -> None:
        self.code = code
        self.settings = settings
        self.executables: dict[str, Path] = {}
        self.warnings: list[str] = []
        self.error = ""
        start = time.perf_counter()
        try:
            if code.labels.unknown:
                tags = ", ".join(code.labels.unknown)
                raise HiraceError(f"unknown bug tag(s) {tags} in the file name: cannot tell "
                                  "what the code should contain")  # fmt: skip
            options = BuildOptions(
                sources=(code.path,), output=Path(code.path.stem), cpu=settings.backend == "cpu",
                include_dirs=settings.include_dirs, defines=dict(settings.defines),
                config=settings.config, optimize=settings.optimize,
            )  # fmt: skip
            for engine, engine_options in builds(options, settings.engine).items():
                built = cached_build(engine_options)
                self.executables[engine] = built.executable
            self.warnings = [str(w) for w in built.warnings]
        # One code failing to build, for whatever reason, is that code's error
        # row; it must not stop the suite. A tool failure (no compiler) would
        # fail every code alike: it stops the suite, and no row is stored.
        except ToolFailure:
            raise
        except Exception as exc:
            self.error = _why(exc)
        self.compile_s = time.perf_counter() - start

    def run(self, data: Input, launch_limit: int | None = None) -> RunResult:
        """Run the program on one input and read its report and output; it may
        make `launch_limit` launches (`LAUNCH_LIMIT` if None)."""
        start = time.perf_counter()
        row = RunResult(
            code=self.code.rel, code_sha=self.code.sha, input=data.name, input_sha=data.sha,
            expected_racy=self.code.labels.racy, expected_bounds=self.code.labels.bounds,
            expected_hang=self.code.labels.hangs,
            compile_s=self.compile_s, warnings=self.warnings,
        )  # fmt: skip
        self.compile_s = 0.0
        if not self.executables:
            row.error = self.error
        else:
            try:
                self._run(data, row, launch_limit or LAUNCH_LIMIT)
            except ToolFailure:
                raise
            except Exception as exc:
                row.error = _why(exc)
        row.run_s = time.perf_counter() - start
        return row

    def _run(self, data: Input, row: RunResult, launch_limit: int) -> None:
        """Runs the program of each engine (the first one's output is the row's) and
        keeps their report, merged for `--engine both`."""
        reports, runs = [], []
        for executable in self.executables.values():
            report, proc = self._execute(executable, data, launch_limit,
                                         row if not runs else None)  # fmt: skip
            reports.append(report)
            runs.append(proc)
        merged = reports[0] if len(reports) == 1 else merge(reports[0], reports[1])
        # Through JSON, so the rows hold what the results database gives back.
        found = json.loads(json.dumps(merged.to_json()))
        launches = found["launches"]
        row.launches = len(reports[0].launches)
        row.races = [race_row(r) for launch in launches for r in launch["races"]]
        row.notices = [*found["notices"], *(n for launch in launches for n in launch["notices"])]
        row.bounds = [*(bound_row(launch["kernel"], b) for launch in launches
                        for b in launch["bounds"]), *cpu_bounds(runs[0].stderr)]  # fmt: skip
        self._compare(runs[0].stdout, row)

    def _execute(self, executable: Path, data: Input, launch_limit: int,
                 row: RunResult | None) -> tuple[Report, subprocess.CompletedProcess]:  # fmt: skip
        """One program's run on `data`: its report and the finished process; its
        exit status and output go into `row` if given."""
        s = self.settings
        command = s.command(executable, data)
        with tempfile.TemporaryDirectory(prefix="hirace-run-") as scratch:
            report = Path(scratch) / "report.dump"
            env = {**os.environ, "HIRACE_DUMP": str(report),
                   "HIRACE_EXITED_THREADS": "arrive", "HIRACE_BOUNDS": "continue",
                   "HIRACE_TIMEOUT": f"{s.timeout:g}",
                   "HIRACE_DEADLINE": f"{DEADLINE_SHARE * s.timeout:g}",
                   "HIRACE_LAUNCH_LIMIT": str(launch_limit)}  # fmt: skip
            proc, backstopped = run_with_limits(command, scratch, env, s.timeout)
            if backstopped or proc.returncode == -signal.SIGXCPU:
                if row is not None:
                    row.hung = True
                why = (f"ran for {backstop(s.timeout):g} s of wall-clock time without "
                       "finishing" if backstopped else f"used its {s.timeout:g} CPU s")  # fmt: skip
                raise HiraceError(f"the program {why} (killed; no race report)")
            if row is not None:
                row.exit_status = proc.returncode
                limits = ("(HIRACE_DEADLINE)", "(HIRACE_LAUNCH_LIMIT)")
                row.hung = proc.returncode == DEADLINE_EXIT and any(
                    limit in proc.stderr for limit in limits)
                row.output = _tail(proc.stdout)
                row.stderr = _tail(proc.stderr)
            if not report.is_file():
                how = (f"was killed by signal {-proc.returncode}" if proc.returncode < 0
                       else f"exited with status {proc.returncode}")  # fmt: skip
                raise HiraceError(f"the program {how} without writing its race report; "
                                  f"stderr ends: {proc.stderr.strip()[-400:]}")  # fmt: skip
            # The suite's rows hold races, bounds and notices of the launches:
            # host-device findings are not read (docs/indigo.md, "Cost").
            return dump.load(report, host=False), proc

    def _compare(self, stdout: str, row: RunResult) -> None:
        s = self.settings
        if re.search(s.differs, stdout, re.M):
            row.differs = True
        elif re.search(s.matches, stdout, re.M):
            row.differs = False
        else:
            row.serial_error = (f"the program's output has no line matching {s.matches!r} or "
                                f"{s.differs!r}")  # fmt: skip
