"""Suite results: one row per code x input x configuration, kept in SQLite.

A row's key is the code (path relative to the suite and SHA-256 of its text),
the input (SHA-256 of the input file), and the configuration: threads per
block, blocks, the concrete backend and a hash of everything else that decides
a run (the command-line template, include directories and defines, the time
limit, the output patterns, the hirace config). A changed code or input file
therefore gets new rows instead of reusing stale ones.

Guarantees: every `add` is committed before it returns (an interrupted run
loses only the runs still in flight); `done` lists exactly the keys already
stored, so a rerun skips them; a file that is not a results database of this
schema is a HiraceError naming it, never overwritten.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from hirace_py.errors import HiraceError

SCHEMA = "hirace-suite-results 4"
OLD_SCHEMAS = ("hirace-suite-results 3",)
"""Schemas a database is upgraded from when opened: 3 lacks `launches` (its rows get 0)."""

_COLUMNS = """
    code TEXT NOT NULL, code_sha TEXT NOT NULL, input_sha TEXT NOT NULL,
    threads INTEGER NOT NULL, blocks INTEGER NOT NULL, backend TEXT NOT NULL,
    config_hash TEXT NOT NULL,
    input TEXT NOT NULL, status TEXT NOT NULL,
    expected_racy INTEGER NOT NULL, expected_bounds INTEGER NOT NULL,
    expected_hang INTEGER NOT NULL, hung INTEGER NOT NULL,
    races TEXT NOT NULL, bounds TEXT NOT NULL, differs INTEGER, serial_error TEXT NOT NULL,
    error TEXT NOT NULL, notices TEXT NOT NULL, warnings TEXT NOT NULL,
    exit_status INTEGER, output TEXT NOT NULL, stderr TEXT NOT NULL,
    compile_s REAL NOT NULL, run_s REAL NOT NULL, finished TEXT NOT NULL,
    launches INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (code, code_sha, input_sha, threads, blocks, backend, config_hash)
"""
_JSON = ("races", "bounds", "notices", "warnings")


@dataclass
class RunResult:
    """What one run of one code on one input produced."""

    code: str
    code_sha: str
    input: str
    input_sha: str
    expected_racy: bool
    expected_bounds: bool
    expected_hang: bool = False
    """The code's label says it may never finish (a planted livelock)."""
    hung: bool = False
    """The program did not finish within the time limit: ended at its
    deadline (its report so far judged) or killed (then an error row)."""
    races: list[dict] = field(default_factory=list)
    """Each race's JSON (report.Race.to_json) plus its sorted line pair, "lines"."""
    bounds: list[dict] = field(default_factory=list)
    """Out-of-bounds accesses found (file, line, thread, block, allocation, offset...)."""
    differs: bool | None = None
    """The program said its results differ from the serial code's; None when
    its output did not say."""
    serial_error: str = ""
    """Why the results were not compared with the serial code, if they were not."""
    error: str = ""
    """Why the code could not be built or run: an error row."""
    notices: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    compile_s: float = 0.0
    run_s: float = 0.0
    exit_status: int | None = None
    """The program's exit status (negative: the signal that ended it)."""
    output: str = ""
    """The end of the program's stdout."""
    stderr: str = ""
    """The end of the program's stderr."""
    launches: int = 0
    """Kernel launches the run's report holds (0: none, or a row stored before
    they were counted)."""

    @property
    def status(self) -> str:
        return "error" if self.error else "ok"

    @property
    def racy(self) -> bool:
        return bool(self.races)


@dataclass(frozen=True)
class Setup:
    """The configuration part of a row's key."""

    threads: int
    blocks: int
    backend: str
    config_hash: str


class ResultsDB:
    """The results of suite runs; `path` None keeps them in memory only."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        where = str(path) if path is not None else ":memory:"
        try:
            self.db = sqlite3.connect(where)
            # WAL: a commit is durable when it returns, even if this process is
            # killed right after; readers never see a half-written row.
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self._schema()
        except sqlite3.DatabaseError as exc:
            raise HiraceError(f"{where}: cannot use as a results database: {exc}") from None

    def _schema(self) -> None:
        tables = {
            r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        if not tables:
            with self.db:
                self.db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA,))
                self.db.execute(f"CREATE TABLE runs ({_COLUMNS})")
            return
        found = None
        if "meta" in tables:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            found = row[0] if row else None
        if found in OLD_SCHEMAS and "runs" in tables:
            with self.db:
                self.db.execute("ALTER TABLE runs ADD COLUMN launches INTEGER NOT NULL DEFAULT 0")
                self.db.execute("UPDATE meta SET value=? WHERE key='schema'", (SCHEMA,))
            return
        if found != SCHEMA or "runs" not in tables:
            raise HiraceError(
                f"{self.path}: not a hirace suite results database of schema {SCHEMA!r} "
                f"(found {found!r}); give another --db file"
            )

    def done(self, setup: Setup) -> set[tuple[str, str, str]]:
        """(code, code_sha, input_sha) of every row stored for `setup`."""
        rows = self.db.execute(
            "SELECT code, code_sha, input_sha FROM runs WHERE threads=? AND blocks=? "
            "AND backend=? AND config_hash=?", _setup_values(setup)
        )  # fmt: skip
        return {(r[0], r[1], r[2]) for r in rows}

    def add(self, result: RunResult, setup: Setup) -> None:
        """Store one row (replacing one with the same key) and commit."""
        values = asdict(result)
        for name in _JSON:
            values[name] = json.dumps(values[name])
        values.update(asdict(setup), status=result.status,
                      finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"))  # fmt: skip
        names = list(values)
        with self.db:
            self.db.execute(
                f"INSERT OR REPLACE INTO runs ({', '.join(names)}) "
                f"VALUES ({', '.join('?' for _ in names)})",
                [values[n] for n in names],
            )

    def results(self, setup: Setup) -> dict[tuple[str, str, str], RunResult]:
        """Every row stored for `setup`, by (code, code_sha, input_sha)."""
        self.db.row_factory = sqlite3.Row
        try:
            rows = self.db.execute(
                "SELECT * FROM runs WHERE threads=? AND blocks=? AND backend=? AND config_hash=?",
                _setup_values(setup),
            ).fetchall()
        finally:
            self.db.row_factory = None
        out = {}
        names = [f.name for f in fields(RunResult)]
        for r in rows:
            values = {n: r[n] for n in names}
            for name in _JSON:
                values[name] = json.loads(values[name])
            values["expected_racy"] = bool(values["expected_racy"])
            for flag in ("expected_bounds", "expected_hang", "hung"):
                values[flag] = bool(values[flag])
            if values["differs"] is not None:
                values["differs"] = bool(values["differs"])
            out[(r["code"], r["code_sha"], r["input_sha"])] = RunResult(**values)
        return out

    def close(self) -> None:
        self.db.close()


def _setup_values(setup: Setup) -> tuple:
    return (setup.threads, setup.blocks, setup.backend, setup.config_hash)
