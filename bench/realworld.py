"""A real-code trial: hirace on CUDA that nobody on the team wrote.

    python bench/realworld.py DIR... [--programs bench/realworld_programs.toml]
                              [--jobs N] [--results FILE] [--per-dir N]
                              [--stage files|programs|all] [--table-only]

Two stages, each printing one table:

1. **files**: every `.cu` under the DIRs (or, with `--per-dir N`, N files of
   each directory, evenly spaced over its sorted file list: a stratified
   sample) is compiled with `nvcc -c` as it is; for every file nvcc accepts,
   `hirace instrument` rewrites it and `nvcc -c` compiles the rewritten copy
   (with `hirace include-dir` on the include path). Counted: files, nvcc
   accepts, instrumented (parsed and rewritten), instrumented copy compiles,
   kernels instrumented, warnings, seconds.
2. **programs**: every program of the manifest whose suite matches a DIR is
   built twice for the CPU backend, `hirace build --cpu` and `hirace build
   --cpu --no-instrument`, both are run with the manifest's arguments, and
   their outputs compared (after dropping lines that match the manifest's
   `ignore` patterns: timings). Counted: built, ran (exit status of the
   instrumented build equals the uninstrumented one's), outputs equal,
   launches / launches of uninstrumented kernels (from the report,
   `HIRACE_DUMP`, rendered by hirace_py.dump), races, warnings, seconds.

Results are appended to a JSON-lines file as they come (`--results`); a rerun
skips every entry already there for the same file content and the same hirace
(a hash of hirace_py/ and templates/), so after a change to hirace everything
is tried again, and nvcc's verdict on an unchanged original is reused.

The held-out samples BlackScholes, fastWalshTransform and convolutionFFT2D are
never listed, read or run (directories of those names are pruned from the walk).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from hirace_py import dump
from hirace_py.report import to_json

ROOT = Path(__file__).resolve().parents[1]
HELD_OUT = ("BlackScholes", "fastWalshTransform", "convolutionFFT2D")
HIRACE = [sys.executable, "-m", "hirace_py.cli"]
ARCH = "sm_80"


def tool_hash() -> str:
    """A hash of hirace itself: results of another hirace are not reused."""
    h = hashlib.sha256()
    for top in ("hirace_py", "templates"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                h.update(path.relative_to(ROOT).as_posix().encode())
                h.update(path.read_bytes())
    return h.hexdigest()[:16]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


@dataclass(frozen=True)
class Suite:
    """A corpus a DIR belongs to: its include directories and its programs."""

    name: str
    match: str
    include: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    programs: tuple[dict, ...] = ()
    every_file: dict | None = None
    """Every sampled file is a program of its own, run with these settings."""
    per_file: tuple[dict, ...] = ()
    """Settings of the files whose name matches an entry's `match` (the first one)."""
    ignore: tuple[str, ...] = ()


def load_manifest(path: Path) -> list[Suite]:
    data = tomllib.loads(path.read_text())
    suites = []
    for name, s in data.get("suite", {}).items():
        suites.append(Suite(name, s["match"], tuple(s.get("include", ())),
                            tuple(s.get("defines", ())), tuple(s.get("program", ())),
                            s.get("every_file"), tuple(s.get("per_file", ())),
                            tuple(s.get("ignore", ()))))  # fmt: skip
    return suites


def suite_of(directory: Path, suites: list[Suite]) -> Suite:
    text = directory.resolve().as_posix()
    for s in suites:
        if s.match in text:
            return s
    return Suite("other", "")


def walk(directory: Path, per_dir: int | None) -> Iterator[Path]:
    """Every .cu under `directory` (held-out samples pruned), or a stratified sample."""
    for here, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d not in HELD_OUT)
        cu = sorted(f for f in files if f.endswith(".cu"))
        if per_dir and len(cu) > per_dir:
            step = len(cu) / per_dir
            cu = [cu[int(i * step)] for i in range(per_dir)]
        for f in cu:
            yield Path(here) / f


class Results:
    """The JSON-lines results file: entries by key, appended under a lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.entries: dict[str, dict] = {}
        if path.is_file():
            for line in path.read_text().splitlines():
                if line.strip():
                    e = json.loads(line)
                    self.entries[e["key"]] = e

    def get(self, key: str) -> dict | None:
        return self.entries.get(key)

    def add(self, entry: dict) -> None:
        with self.lock:
            self.entries[entry["key"]] = entry
            with self.path.open("a") as f:
                f.write(json.dumps(entry) + "\n")


def run(cmd: list[str], timeout: float, cwd: Path | None = None,
        env: dict | None = None) -> tuple[int, str, str, float]:  # fmt: skip
    """(status, stdout, stderr, seconds); status 124 on timeout (process group killed)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", cwd=cwd, env=env, start_new_session=True)  # fmt: skip
    try:
        out, err = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = 124
    return code, out, err, time.perf_counter() - start


def first_error(text: str) -> str:
    """The first line that says what went wrong (compiler or hirace)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "error" in line.lower():
            if line.rstrip().endswith(":") and i + 1 < len(lines):
                line = f"{line.rstrip()} {lines[i + 1].strip()}"
            return line.strip()[:300]
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[0][:300] if lines else ""


def failure(code: int, err: str, limit: float) -> str:
    """What went wrong with a command that exited with `code`: a timeout says
    so (a killed compiler leaves no message), else the first error line."""
    if code == 124:
        return f"timed out after {limit:.0f} s"
    return first_error(err) or f"exit status {code}"


def nvcc_cmd(path: Path, includes: list[str], defines: tuple[str, ...], out: Path) -> list[str]:
    return ["nice", "nvcc", "-c", f"-arch={ARCH}", "-std=c++17", f"-I{path.parent}",
            *[f"-I{i}" for i in includes], *[f"-D{d}" for d in defines], str(path),
            "-o", str(out)]  # fmt: skip


def check_file(path: Path, suite: Suite, includes: list[str], results: Results, tool: str,
               include_dir: str) -> dict:  # fmt: skip
    """Stage 1 for one file."""
    digest = sha(path)
    key = f"file:{path}:{digest}:{tool}"
    done = results.get(key)
    if done:
        return done
    entry: dict = {"key": key, "stage": "file", "suite": suite.name, "path": str(path)}
    with tempfile.TemporaryDirectory(prefix="hirace-rw-") as tmp:
        work = Path(tmp)
        orig_key = f"orig:{path}:{digest}"
        orig = results.get(orig_key)
        if orig is None:
            code, _, err, secs = run(nvcc_cmd(path, includes, suite.defines, work / "o.o"), 600)
            orig = {"key": orig_key, "stage": "orig", "path": str(path), "ok": code == 0,
                    "error": "" if code == 0 else failure(code, err, 600),
                    "time": secs}  # fmt: skip
            results.add(orig)
        entry["nvcc"] = orig["ok"]
        entry["nvcc_time"] = orig["time"]
        if not orig["ok"]:
            entry["nvcc_error"] = orig["error"]
            results.add(entry)
            return entry
        out = work / (path.stem + ".hirace.cu")
        tables = work / "tables.json"
        cmd = ["nice", *HIRACE, "instrument", str(path), "-o", str(out), "--tables", str(tables),
               *[f"-I{i}" for i in includes], *[f"-D{d}" for d in suite.defines]]  # fmt: skip
        code, _, err, secs = run(cmd, 600)
        entry["instrument_time"] = secs
        entry["instrumented"] = code == 0
        entry["warnings"] = [ln for ln in err.splitlines() if ln.startswith(str(path))
                             or ": warning" in ln]  # fmt: skip
        if code != 0:
            entry["instrument_error"] = failure(code, err, 600)
            results.add(entry)
            return entry
        info = json.loads(tables.read_text()) if tables.is_file() else {}
        entry["kernels"] = len(info.get("kernels", []))
        cmd = nvcc_cmd(out, [*includes, str(path.parent), include_dir], suite.defines,
                       work / "i.o")  # fmt: skip
        code, _, err, secs = run(cmd, 600)
        entry["compile_time"] = secs
        entry["compiled"] = code == 0
        if code != 0:
            entry["compile_error"] = failure(code, err, 600)
    results.add(entry)
    return entry


@dataclass
class RacyEdit:
    """A change to one file of a program that makes it racy (a fence or a sync
    removed, an atomic made plain), to show that hirace notices: the text
    `find` replaced by `replace` at its `nth` occurrence in the file (1-based;
    0: at every one). Within a line, so line numbers stay those of the original."""

    file: str
    find: str
    replace: str = ""
    nth: int = 0
    why: str = ""

    def apply(self, text: str, where: str) -> str:
        """`text` edited; a `find` that is not there (at its `nth`) is a manifest
        error naming `where`."""
        if not self.find or "\n" in self.find or "\n" in self.replace:
            raise SystemExit(f"realworld: {where}: an edit's find/replace is one non-empty line")
        parts = text.split(self.find)
        if len(parts) < 2 or self.nth > len(parts) - 1:
            raise SystemExit(f"realworld: {where}: {self.find!r} occurs {len(parts) - 1} time(s) "
                             f"in {self.file}, nth = {self.nth}")  # fmt: skip
        if self.nth == 0:
            return self.replace.join(parts)
        n = self.nth
        return self.find.join(parts[:n]) + self.replace + self.find.join(parts[n:])


@dataclass
class Program:
    name: str
    suite: Suite
    directory: Path
    sources: list[Path]
    args: list[str]
    includes: list[str]
    ignore: list[str]
    timeout: float = 300.0
    data: list[Path] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    nvcc_flags: str = ""
    """What its build passes to nvcc beyond -I/-D (e.g. its Makefile's -Xcompiler -fopenmp)."""
    prepare: list[str] = field(default_factory=list)
    """Shell commands run before it where it runs (making its input files); `{dir}` is
    its directory."""
    compare: list[str] = field(default_factory=list)
    """Files it writes whose contents are compared between the two builds, as its output is."""
    edits: list[RacyEdit] = field(default_factory=list)
    """Racy edits of it, each checked to be reported (`check_edit`)."""

    def missing_inputs(self) -> list[str]:
        """The input files it reads that are neither in its directory nor in data/."""
        here = (self.directory, self.directory / "data")
        return [n for n in self.inputs if not any((d / n).exists() for d in here)]


def programs_of(directory: Path, suite: Suite, includes: list[str],
                per_dir: int | None) -> list[Program]:  # fmt: skip
    out = []
    for p in suite.programs:
        d = directory / p["dir"]
        if any(part in HELD_OUT for part in Path(p["dir"]).parts):
            continue
        if not d.is_dir():
            continue
        names = p.get("sources") or sorted(
            f for f in os.listdir(d) if f.endswith((".cu", ".cpp", ".c"))
        )
        out.append(Program(p.get("name", d.name), suite, d, [d / n for n in names],
                           [str(a) for a in p.get("args", [])],
                           [*includes, *p.get("include", [])],
                           [*suite.ignore, *p.get("ignore", [])],
                           float(p.get("timeout", 300)), [d / "data"],
                           list(p.get("inputs", [])), p.get("nvcc_flags", ""),
                           list(p.get("prepare", [])), list(p.get("compare", [])),
                           [RacyEdit(**e) for e in p.get("edits", [])]))  # fmt: skip
    if suite.every_file is not None:
        e = suite.every_file
        for path in walk(directory, per_dir):
            # The first of the suite's per_file entries whose `match` the file name
            # matches overrides every_file's settings.
            f = {**e, **next((x for x in suite.per_file if re.search(x["match"], path.name)),
                             {})}  # fmt: skip
            args = [str((directory / a).resolve()) if a.startswith(("./", "../")) else a
                    for a in f.get("args", [])]  # fmt: skip
            out.append(Program(path.stem, suite, path.parent, [path], args, includes,
                               [*suite.ignore, *f.get("ignore", [])],
                               float(f.get("timeout", 300)), nvcc_flags=f.get("nvcc_flags", ""),
                               prepare=list(f.get("prepare", [])),
                               compare=list(f.get("compare", []))))  # fmt: skip
    return out


def comparable(text: str, ignore: list[str]) -> list[str]:
    pats = [re.compile(p) for p in ignore]
    return [ln.rstrip() for ln in text.splitlines() if not any(p.search(ln) for p in pats)]


def build_and_run(prog: Program, sources: list[Path], work: Path, label: str, flags: list[str],
                  entry: dict) -> tuple[int, str] | None:  # fmt: skip
    """Builds `sources` of `prog` for the CPU backend in `work` (created here) with
    hirace's `flags`, runs it there as `./NAME` (so that programs printing argv[0]
    print the same text for every build) and records in `entry`, under keys
    prefixed by `label`, the build's and the run's outcome; for the instrumented
    build ("inst") also its report's launches, races and notices. Returns the
    run's exit status and output (with the digests of its `compare` files), or
    None when it did not get to run."""
    work.mkdir()
    for extra in prog.data:
        if extra.exists():
            (work / extra.name).symlink_to(extra)
    exe = work / prog.name
    cmd = ["nice", *HIRACE, "build", "--cpu", *flags, *map(str, sources), "-o",
           str(exe), *[f"-I{i}" for i in prog.includes],
           *[f"-D{d}" for d in prog.suite.defines]]  # fmt: skip
    if prog.nvcc_flags:
        cmd.append(f"--nvcc-flags={prog.nvcc_flags}")
    code, _, err, secs = run(cmd, 900)
    entry[f"{label}_build_time"] = secs
    if code != 0:
        entry[f"{label}_build_error"] = failure(code, err, 900)
        return None
    if label == "inst":
        entry["warnings"] = sum(1 for ln in err.splitlines() if ": warning" in ln)
    report = work / f"{label}.json"
    # A launch may take as long as the whole program may.
    env = {**os.environ, "HIRACE_DUMP": str(report), "HIRACE_TIMEOUT": f"{prog.timeout:g}"}
    failed = next((c for c in prog.prepare if run(
        ["sh", "-c", c.format(dir=prog.directory)], 300, cwd=work)[0] != 0), None)
    if failed is not None:
        entry[f"{label}_build_error"] = f"preparing its inputs failed: {failed}"
        return None
    argv = [f"./{prog.name}", *prog.args]
    code, out, err, secs = run(argv, prog.timeout, cwd=work, env=env)
    for name in prog.compare:
        written = work / name
        digest = sha(written) if written.is_file() else "not written"
        out += f"\n{name}: {digest}"
    entry[f"{label}_status"] = code
    entry[f"{label}_run_time"] = secs
    # A launch stopped by the CPU backend's time limit: the program goes on
    # with a sticky error, so its output proves nothing either way.
    stopped = [ln for ln in err.splitlines() if "cudaErrorLaunchTimeout" in ln]
    if stopped:
        entry[f"{label}_launch_timeout"] = stopped[0][-300:]
    if code == 124:
        entry[f"{label}_stderr"] = f"error: timed out after {prog.timeout:.0f} s"
    elif code != 0:
        entry[f"{label}_stderr"] = "\n".join(err.splitlines()[-5:])[-600:]
    if label == "inst" and report.is_file():
        rep = json.loads(to_json(dump.load(report)))
        races = [r for launch in rep["launches"] for r in launch["races"]]
        entry["launches"] = len(rep["launches"])
        entry["races"] = len(races)
        notices: dict[str, int] = {}
        for n in rep["notices"] + [n for lch in rep["launches"] for n in lch["notices"]]:
            notices[n["code"]] = notices.get(n["code"], 0) + n["count"]
        entry["uninstrumented_launches"] = notices.get("uninstrumented-kernel", 0)
        entry["notices"] = notices
        entry["race_sites"] = sorted({
            f"{r['variable']} {r['first']['site']['line'] if r['first']['site'] else '?'}"
            f"/{r['second']['site']['line']}" for r in races
        })[:10]  # fmt: skip
    return code, out


def check_program(prog: Program, results: Results, tool: str) -> dict:
    """Stage 2 for one program."""
    digest = hashlib.sha256(b"".join(sha(s).encode() for s in prog.sources)).hexdigest()[:16]
    key = f"program:{prog.directory}:{prog.name}:{digest}:{tool}:{json.dumps(prog.args)}"
    if prog.nvcc_flags or prog.prepare or prog.compare:
        key += ":" + json.dumps([prog.nvcc_flags, prog.prepare, prog.compare])
    done = results.get(key)
    if done:
        return done
    entry: dict = {"key": key, "stage": "program", "suite": prog.suite.name,
                   "name": prog.name, "dir": str(prog.directory)}  # fmt: skip
    start = time.perf_counter()
    missing = prog.missing_inputs()
    if missing:
        entry.update(built=False, ran=False, equal=False, missing_inputs=missing, time=0.0)
        results.add(entry)
        return entry
    with tempfile.TemporaryDirectory(prefix="hirace-rwp-") as tmp:
        runs = {}
        for label, flags in (("inst", []), ("orig", ["--no-instrument"])):
            ran = build_and_run(prog, prog.sources, Path(tmp) / label, label, flags, entry)
            if ran is not None:
                runs[label] = ran
        entry["built"] = "inst_build_error" not in entry and "orig_build_error" not in entry
        entry["ran"] = entry["built"] and runs["inst"][0] == runs["orig"][0] != 124
        entry["equal"] = entry["ran"] and (
            comparable(runs["inst"][1], prog.ignore) == comparable(runs["orig"][1], prog.ignore)
        )
        if entry["ran"] and not entry["equal"]:
            a = comparable(runs["inst"][1], prog.ignore)
            b = comparable(runs["orig"][1], prog.ignore)
            diff = [f"- {x}\n+ {y}" for x, y in zip(b, a, strict=False) if x != y][:3]
            entry["diff"] = "\n".join(diff) or f"{len(b)} vs {len(a)} lines"
    entry["time"] = time.perf_counter() - start
    results.add(entry)
    return entry


def file_table(entries: list[dict]) -> str:
    by_suite: dict[str, list[dict]] = {}
    for e in entries:
        by_suite.setdefault(e["suite"], []).append(e)
    head = ("suite", "files", "nvcc accepts", "instrumented", "compiles", "% of accepted",
            "kernels", "warnings", "seconds")  # fmt: skip
    rows = []
    for name, es in sorted(by_suite.items()):
        acc = [e for e in es if e["nvcc"]]
        inst = [e for e in acc if e.get("instrumented")]
        comp = [e for e in inst if e.get("compiled")]
        secs = sum(e.get("instrument_time", 0) + e.get("compile_time", 0) for e in es)
        pct = f"{100 * len(comp) / len(acc):.1f}" if acc else "-"
        rows.append((name, len(es), len(acc), len(inst), len(comp), pct,
                     sum(e.get("kernels", 0) for e in comp),
                     sum(len(e.get("warnings", [])) for e in comp), f"{secs:.0f}"))  # fmt: skip
    return markdown(head, rows)


def check_edit(prog: Program, edit: RacyEdit, results: Results, tool: str) -> dict:
    """A racy edit of a program: a copy of its directory with the edit applied is
    built instrumented and run as the program is; the entry's `races` (and
    `race_sites`) say whether hirace reported it."""
    digest = hashlib.sha256(b"".join(sha(s).encode() for s in prog.sources)).hexdigest()[:16]
    key = (f"edit:{prog.directory}:{prog.name}:{digest}:{tool}:{json.dumps(prog.args)}:"
           f"{json.dumps(vars(edit), sort_keys=True)}")  # fmt: skip
    done = results.get(key)
    if done:
        return done
    entry: dict = {"key": key, "stage": "edit", "suite": prog.suite.name, "name": prog.name,
                   "dir": str(prog.directory), "edit": vars(edit)}  # fmt: skip
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hirace-rwe-") as tmp:
        copy = Path(tmp) / "src"
        shutil.copytree(prog.directory, copy, symlinks=True)
        target = copy / edit.file
        target.write_text(edit.apply(target.read_text(), f"{prog.name} edit"))
        sources = [copy / s.relative_to(prog.directory) for s in prog.sources]
        entry["ran"] = build_and_run(prog, sources, Path(tmp) / "inst", "inst", [], entry) \
            is not None  # fmt: skip
    entry["time"] = time.perf_counter() - start
    results.add(entry)
    return entry


def edit_table(entries: list[dict]) -> str:
    """Racy edits: whether each was reported, and where."""
    head = ("program", "edit", "file", "ran", "races", "race sites (variable first/second line)")
    rows = [(e["name"], e["edit"]["why"] or f"{e['edit']['find']!r} -> {e['edit']['replace']!r}",
             e["edit"]["file"], yes(e["ran"]), e.get("races", "-"),
             ", ".join(e.get("race_sites", [])) or why_edit(e))
            for e in sorted(entries, key=lambda e: e["name"])]  # fmt: skip
    reported = sum(1 for e in entries if e.get("races"))
    rows.append(("**total**", f"{reported}/{len(entries)} reported", "", "", "", ""))
    return markdown(head, rows)


def why_edit(e: dict) -> str:
    """Why an edit has no race sites: its build or run failed, or no race was found."""
    if "inst_build_error" in e:
        return f"build: {e['inst_build_error']}"[:160].replace("|", "\\|")
    if "launches" not in e:
        return f"no race report (exit {e.get('inst_status')})"
    return "**not reported**"


def program_table(entries: list[dict]) -> str:
    head = ("program", "built", "ran", "equal", "launches", "uninstr. launches", "races",
            "warnings", "seconds", "why not")  # fmt: skip
    rows = []
    for e in sorted(entries, key=lambda e: (e["suite"], e["name"])):
        rows.append((e["name"], yes(e["built"]), yes(e["ran"]), yes(e["equal"]),
                     e.get("launches", "-"), e.get("uninstrumented_launches", "-"),
                     e.get("races", "-"), e.get("warnings", "-"), f"{e['time']:.0f}",
                     why(e)))  # fmt: skip
    n = len(entries)
    ok = sum(1 for e in entries if not why(e))
    no_inputs = sum(1 for e in entries if e.get("missing_inputs"))
    rows.append(("**total**", sum(e["built"] for e in entries), sum(e["ran"] for e in entries),
                 sum(e["equal"] for e in entries), sum(e.get("launches", 0) for e in entries),
                 sum(e.get("uninstrumented_launches", 0) for e in entries),
                 sum(e.get("races", 0) for e in entries), sum(e.get("warnings", 0) or 0
                 for e in entries), f"{sum(e['time'] for e in entries):.0f}",
                 f"{ok}/{n} fully checked and equal ({ok}/{n - no_inputs} of those whose "
                 "inputs the corpus has)"))  # fmt: skip
    return markdown(head, rows)


def why(e: dict) -> str:
    if e.get("missing_inputs"):
        return f"not run: input files not in the corpus: {', '.join(e['missing_inputs'])}"
    for k in ("inst_build_error", "orig_build_error"):
        if k in e:
            return f"{k.split('_')[0]} build: {e[k]}"[:160].replace("|", "\\|")
    if not e["ran"]:
        return (f"exit {e.get('inst_status')} vs {e.get('orig_status')}: "
                f"{first_error(e.get('inst_stderr', '') or e.get('orig_stderr', ''))}"
                )[:160].replace("|", "\\|")  # fmt: skip
    for k in ("inst_launch_timeout", "orig_launch_timeout"):
        if k in e:
            return f"{k.split('_')[0]}: a launch passed the time limit: {e[k]}"[:160].replace(
                "|", "\\|")
    if "launches" not in e:
        return f"no race report: the instrumented run exited {e.get('inst_status')} without one"
    if e.get("inst_status") and not e["launches"]:
        err = first_error(e.get("inst_stderr", ""))
        return (f"exit {e['inst_status']} before any launch: {err}"
                )[:160].replace("|", "\\|")  # fmt: skip
    if not e["equal"]:
        return f"output differs: {e.get('diff', '')}"[:160].replace("\n", " ").replace("|", "\\|")
    if e.get("uninstrumented_launches"):
        return "launches of uninstrumented kernels"
    return ""


def yes(b: bool) -> str:
    return "yes" if b else "no"


def markdown(head: tuple, rows: list[tuple]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def failures(entries: list[dict]) -> str:
    """Every file failure: the stage and the first error line."""
    out = []
    for e in sorted(entries, key=lambda e: e["path"]):
        if not e["nvcc"]:
            continue
        if not e.get("instrumented"):
            out.append(f"- instrument: `{e['path']}`: {e.get('instrument_error')}")
        elif not e.get("compiled"):
            out.append(f"- nvcc of instrumented: `{e['path']}`: {e.get('compile_error')}")
    return "\n".join(out) + "\n"


_WHERE = re.compile(r"^(hirace: error: cannot parse CUDA source: )?\S+?:\d+:\d+: ")


def failure_class(message: str) -> str:
    """A failure's class: its message without the file and position."""
    text = _WHERE.sub("", message.strip())
    text = re.sub(r"^\S+\(\d+\): ", "", text)  # nvcc's file(line): prefix
    return text[:160]


def census(entries: list[dict]) -> str:
    """Failures by class, most frequent first, with one example file each."""
    classes: dict[tuple[str, str], list[str]] = {}
    for e in entries:
        if e["stage"] == "file" and e["nvcc"]:
            if not e.get("instrumented"):
                stage, msg = "instrument", e.get("instrument_error", "")
            elif not e.get("compiled"):
                stage, msg = "nvcc of instrumented copy", e.get("compile_error", "")
            else:
                continue
            classes.setdefault((stage, failure_class(msg)), []).append(e["path"])
        elif e["stage"] == "program" and not (e["equal"] and not e.get("uninstrumented_launches")):
            classes.setdefault(("program", failure_class(why(e))), []).append(e["dir"])
    out = ["| stage | count | class | example |", "|---|---|---|---|"]
    for (stage, cls), paths in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        cls = cls.replace("|", "\\|")
        out.append(f"| {stage} | {len(paths)} | {cls} | `{paths[0]}` |")
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--programs", type=Path, default=ROOT / "bench" / "realworld_programs.toml")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument(
        "--results",
        type=Path,
        default=Path(tempfile.gettempdir()) / f"hirace-realworld-{os.getuid()}.jsonl",
    )
    ap.add_argument(
        "--per-dir",
        type=int,
        default=None,
        help="check N files per directory, evenly spaced over its sorted list",
    )
    ap.add_argument("--stage", choices=("files", "programs", "all"), default="all")
    ap.add_argument("--only", default=None, help="regex: only programs/files matching it")
    ap.add_argument(
        "--table-only",
        action="store_true",
        help="print the tables of the latest stored results (of any hirace)",
    )
    ap.add_argument("--census", action="store_true", help="also print failures by class")
    args = ap.parse_args()
    if shutil.which("nvcc") is None:
        print("realworld: nvcc not found on PATH", file=sys.stderr)
        return 2
    suites = load_manifest(args.programs)
    results = Results(args.results)
    tool = tool_hash()
    include_dir = subprocess.run([*HIRACE, "include-dir"], capture_output=True, text=True,
                                 check=True).stdout.strip()  # fmt: skip
    only = re.compile(args.only) if args.only else None
    file_jobs, prog_jobs = [], []
    for d in args.dirs:
        suite = suite_of(d, suites)
        includes = [str((d / i).resolve()) for i in suite.include]
        if args.stage in ("files", "all"):
            for path in walk(d, args.per_dir):
                if only is None or only.search(str(path)):
                    file_jobs.append((path, suite, includes))
        if args.stage in ("programs", "all"):
            for prog in programs_of(d, suite, includes, args.per_dir):
                if only is None or only.search(prog.name):
                    prog_jobs.append(prog)
    file_entries: list[dict] = []
    prog_entries: list[dict] = []
    edit_entries: list[dict] = []
    total = len(file_jobs) + len(prog_jobs) + sum(len(p.edits) for p in prog_jobs)
    count = 0

    def progress(what: str, ok: bool) -> None:
        nonlocal count
        count += 1
        print(f"[{count}/{total}] {'ok  ' if ok else 'FAIL'} {what}", file=sys.stderr, flush=True)

    def do_file(job: tuple) -> None:
        path, suite, includes = job
        if args.table_only:
            prefix = f"file:{path}:{sha(path)}:"
            found = [e for k, e in results.entries.items() if k.startswith(prefix)]
            file_entries.extend(found[-1:])
            return
        e = check_file(path, suite, includes, results, tool, include_dir)
        file_entries.append(e)
        progress(str(path), not e["nvcc"] or bool(e.get("compiled")))

    def do_prog(prog: Program) -> None:
        if args.table_only:
            matches = [
                e
                for k, e in results.entries.items()
                if k.startswith(f"program:{prog.directory}:{prog.name}:")
            ]
            prog_entries.extend(matches[-1:])
            for edit in prog.edits:
                tail = f":{json.dumps(vars(edit), sort_keys=True)}"
                head = f"edit:{prog.directory}:{prog.name}:"
                found = [e for k, e in results.entries.items()
                         if k.startswith(head) and k.endswith(tail)]  # fmt: skip
                edit_entries.extend(found[-1:])
            return
        e = check_program(prog, results, tool)
        prog_entries.append(e)
        progress(prog.name, e["equal"])
        for edit in prog.edits:
            d = check_edit(prog, edit, results, tool)
            edit_entries.append(d)
            progress(f"{prog.name} (racy edit: {edit.why or edit.find})", bool(d.get("races")))

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        list(pool.map(do_file, file_jobs))
        list(pool.map(do_prog, prog_jobs))
    if file_entries:
        print(file_table(file_entries))
        print(failures(file_entries))
    if prog_entries:
        print(program_table(prog_entries))
    if edit_entries:
        print(edit_table(edit_entries))
    if args.census:
        print(census(file_entries + prog_entries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
