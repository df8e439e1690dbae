"""`hirace check SUITE --inputs ...` on the Indigo-style mini-suite, end to end.

Every code is built as the program it is (its driver header's `main` reads
the graph, fills the data, launches test_kernel, compares with serial_code
and prints the verdict) and run with `GRAPH THREADS BLOCKS`. The main run
checks all 66 codes on three graphs on which every planted race happens
(indigo/minisuite/README.md), with 16 blocks: enough to cover every mapping
on graphs of at most 9 nodes (block per vertex needs `nodes` blocks).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from hirace_py.cli import main
from hirace_py.config import Config
from hirace_py.indigo.ecl import read_ecl
from hirace_py.indigo.pool import Pool, Task
from hirace_py.indigo.programs import Settings, load_input
from hirace_py.indigo.progress import Progress
from hirace_py.indigo.properties import MINISUITE_NEEDS, minisuite_qualifies
from hirace_py.indigo.results import RunResult
from hirace_py.indigo.runner import prepare
from hirace_py.indigo.suite import discover, labels_from_name

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "indigo" / "minisuite"
GRAPHS = ROOT / "indigo" / "graphs"
# Three qualifying graphs of different shape: edges high -> low, mixed
# directions with hubs, and a grid (low -> high, every vertex two successors).
INPUTS = ["counter_dag_8.egr", "power_law_8.egr", "grid_9.egr"]
BLOCKS = "16"
LABELS = {c["file"]: c for c in tomllib.loads((SUITE / "labels.toml").read_text())["code"]}
KEYS = ("input", "tests", "expected_racy", "found", "missed", "false_alarms", "errors")


def check(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(["check", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def suite_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("indigo") / "results.sqlite"


def suite_argv(db: Path, fmt: str) -> list[str]:
    inputs = [str(GRAPHS / g) for g in INPUTS]
    return [str(SUITE), "--inputs", *inputs, "--blocks", BLOCKS, "--jobs", "2",
            "--db", str(db), "--format", fmt]  # fmt: skip


@pytest.fixture(scope="module")
def first_run(suite_db: Path) -> tuple[int, list[dict], str]:
    """The main run (JSON summary); module-scoped: it is the expensive part."""
    out = suite_db.with_suffix(".json")
    status = main(["check", *suite_argv(suite_db, "json"), "-o", str(out)])
    return status, json.loads(out.read_text()), out.read_text()


def test_inputs_qualify() -> None:
    for g in INPUTS:
        assert minisuite_qualifies(read_ecl(GRAPHS / g)), g
        assert read_ecl(GRAPHS / g).nodes <= int(BLOCKS)


def test_every_planted_race_found_and_no_false_alarm(first_run) -> None:
    status, summary, _ = first_run
    assert status == 0
    racy = sum(1 for c in LABELS.values() if c["racy"])
    assert [s["input"] for s in summary] == [str(GRAPHS / g) for g in INPUTS]
    for s in summary:
        assert set(KEYS) <= set(s)
        assert (s["tests"], s["expected_racy"], s["found"]) == (len(LABELS), racy, racy), s
        assert (s["missed"], s["false_alarms"], s["errors"]) == (0, 0, 0), s
        assert s["missed_codes"] == s["false_alarm_codes"] == s["error_codes"] == []


def test_bounds_bugs_reported_as_bounds_only(first_run) -> None:
    """Each boundsBug code reads nlist[edges] on its labelled line: one finding,
    of the driver's allocation d_nlist, one element past its end; the run goes
    on and its race verdict stands (edge_persistent_atomicBug_boundsBug)."""
    _, summary, _ = first_run
    expected = {name: c for name, c in LABELS.items() if c.get("bounds")}
    assert expected
    for s in summary:
        found = {b["code"]: b["bounds"] for b in s["bounds_codes"]}
        assert set(found) == set(expected)
        assert s["bounds"] == s["expected_bounds"] == len(expected)
        assert s["bounds_unexpected"] == s["bounds_undetected"] == 0
        edges = read_ecl(s["input"]).edges
        for name, findings in found.items():
            label = expected[name]["bounds"][0]
            assert [(b["allocation"], b["file"], b["line"], b["write"], b["offset"], b["size"])
                    for b in findings] == [
                (f"d_{label['array']}", name, label["line"], False, 4 * edges, 4 * edges)
            ]  # fmt: skip


def rows(db: Path) -> list[dict]:
    with sqlite3.connect(db) as con:
        con.row_factory = sqlite3.Row
        return [dict(r) for r in con.execute("SELECT * FROM runs")]


def test_one_row_per_code_and_input(first_run, suite_db: Path) -> None:
    found = rows(suite_db)
    assert len(found) == len(LABELS) * len(INPUTS)
    assert {(r["code"], r["input"]) for r in found} == {
        (c, str(GRAPHS / g)) for c in LABELS for g in INPUTS
    }
    assert {(r["threads"], r["blocks"], r["backend"], r["status"]) for r in found} == {
        (256, int(BLOCKS), "cpu", "ok")
    }


def test_race_line_pairs_match_labels(first_run, suite_db: Path) -> None:
    """Every reported race is a labelled (line pair, kind, variable) of that code,
    and every labelled race with a line pair whose needs hold on the graph is
    reported with one of those pairs.

    The shadow word keeps one earlier accessor per element, so when accesses
    from two labelled pairs race on the same element (edge_raceBug: data1[v]
    read as a source at one line and as a destination at the next, then
    updated atomically), the report names the pair whose earlier access came
    last; which one that is depends on the schedule, not on the checker's
    exactness. Requiring one pair per labelled race keeps the check exact about
    races found without asking the shadow for more than it stores.

    The whole-program report has one entry per pair of sites, with the kind
    of the access pair it caught first. When it marks the earlier access as
    inexact (the last access before the race, not necessarily its partner),
    only the racing access's line is certain, and only it is checked. A
    global variable is reported by the driver's allocation, `d_<parameter>`."""
    for row in rows(suite_db):
        graph = read_ecl(row["input"])
        label = LABELS[row["code"]]
        allowed, needed = set(), []
        for race in label.get("race", []):
            name = f"d_{race['variable']}" if race["space"] == "global" else race["variable"]
            possible = set()
            for pair in race["pairs"]:
                lines = tuple(sorted(pair["lines"]))
                allowed.add((lines, pair["kind"], name))
                if all(MINISUITE_NEEDS[n](graph) for n in pair["needs"]):
                    possible.add((lines, name))
            if possible:
                needed.append(possible)
        where = (row["code"], row["input"])
        found = set()
        for r in json.loads(row["races"]):
            var, second = r["variable"], r["second"]["site"]["line"]
            if r["exact"]:
                assert (tuple(r["lines"]), r["kind"], var) in allowed, (where, r["lines"])
                found.add((tuple(r["lines"]), var))
            else:
                pairs = {lines for lines, _, v in allowed if v == var and second in lines}
                assert pairs, (where, "inexact", second, var)
                found |= {(lines, var) for lines in pairs}
        missing = [sorted(possible) for possible in needed if not possible & found]
        assert not missing, (where, missing)


def test_sequential_comparison(first_run, suite_db: Path) -> None:
    """The drivers' own verdicts: race-free codes match serial_code; raceBug
    codes, which write data1 in place, never do; every run was compared."""
    found = rows(suite_db)
    assert all(r["differs"] in (0, 1) and r["serial_error"] == "" for r in found)
    for r in found:
        bugs = labels_from_name(r["code"][:-3]).bugs
        if not bugs:
            assert r["differs"] == 0, r["code"]
        if "raceBug" in bugs:
            assert r["differs"] == 1, r["code"]
    _, summary, _ = first_run
    for s in summary:
        assert s["differs_race_free"] == sum(
            1 for r in found if r["input"] == s["input"] and r["differs"] and not LABELS[
                r["code"]]["racy"]
        )  # fmt: skip


def test_resume_skips_every_row_and_gives_the_same_table(
    first_run, suite_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, first_text = first_run
    status, out, err = check(suite_argv(suite_db, "json"), capsys)
    total = len(LABELS) * len(INPUTS)
    assert status == 0
    assert f"{total} runs reused from {suite_db}, 0 to run" in err
    assert out == first_text
    assert len(rows(suite_db)) == total
    status, out, _ = check(suite_argv(suite_db, "text"), capsys)
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("input"))
    assert lines[head].split() == ["input", "tests", "expected", "racy", "found", "missed",
                                   "false", "alarms", "errors", "hung", "bounds", "differs",
                                   "not", "compared"]  # fmt: skip
    racy = sum(1 for c in LABELS.values() if c["racy"])
    for line, g in zip(lines[head + 2 : head + 5], INPUTS, strict=True):
        cells = line.split()
        assert cells[0] == str(GRAPHS / g)
        assert cells[1:9] == [str(len(LABELS)), str(racy), str(racy), "0", "0", "0", "0", "11"]
    assert lines[head + 5].split()[:2] == ["total", str(total)]
    assert "Out-of-bounds accesses (not races):" in out
    assert "of 'd_nlist' (" in out
    assert "Missed" not in out and "False alarms" not in out and "Errors" not in out


# ---------------------------------------------------------- errors, skips, labels


def test_labels_from_names() -> None:
    assert labels_from_name("push_warp_syncBug").racy
    both = labels_from_name("edge_persistent_atomicBug_boundsBug")
    assert both.racy and both.bounds and both.bugs == ("atomicBug", "boundsBug")
    assert not labels_from_name("push_boundsBug").racy
    assert not labels_from_name("push-reverse").bugs
    assert labels_from_name("push-raceBug").racy
    assert labels_from_name("push_fooBug").unknown == ("fooBug",)


@pytest.mark.parametrize(
    ("stem", "racy", "bounds"),
    [
        ("BFS_CUDA_E_Data_IntType_ReadWrite_NonPersist_RaceBug_ExcessThreadsBug_NoLivelockBug_"
         "NonDeterm_UninitializedBug_NoFieldBug_NoOverflowBug", True, False),
        ("BFS_CUDA_E_Data_IntType_ReadModifyWrite_NonPersist_Atomic_ExcessThreadsBug_"
         "NoLivelockBug_Determ_NoUninitializedBug_FieldBug_NoOverflowBug", False, False),
        ("PR_CUDA_Pull_FloatType_NoRaceBug_FieldBug_NbrBoundsBug_NoSyncBug_BoundsBug_"
         "NoPrecedenceBug_Persist_Block_Determ_BlockAdd", False, True),
        ("TC_CUDA_E_Block_NonPersist_BlockAdd_IntType_Atomic_SyncBug_NoPrecedenceBug_"
         "NoNbrBoundsBug_ExcessThreadsBug", True, False),
        ("MIS_X_NborBoundsBug", False, True),
    ],
)
def test_indigo3_labels(stem: str, racy: bool, bounds: bool) -> None:
    """Indigo3 names: `No<Tag>` is an absence, never an unknown tag."""
    labels = labels_from_name(stem)
    assert (labels.racy, labels.bounds, labels.unknown) == (racy, bounds, ())


@pytest.fixture
def small_suite(tmp_path: Path) -> Path:
    """Two good codes (one nested, each with the driver header next to it), a
    broken copy and an unlabelable name."""
    root = tmp_path / "suite"
    deeper = root / "nested" / "deeper"
    deeper.mkdir(parents=True)
    (root / "broken").mkdir()
    for d in (root, deeper, root / "broken"):
        shutil.copy(SUITE / "indigo_cuda.h", d / "indigo_cuda.h")
    shutil.copy(SUITE / "push_atomicBug.cu", deeper / "push_atomicBug.cu")
    shutil.copy(SUITE / "push.cu", root / "push.cu")
    text = (SUITE / "push.cu").read_text()
    assert "atomicAdd(&data2[u], val);" in text
    (root / "broken" / "push.cu").write_text(
        text.replace("atomicAdd(&data2[u], val);", "atomicAdd(&data2[u], val) +;")
    )
    shutil.copy(SUITE / "push.cu", root / "push_fooBug.cu")
    return root


def test_error_rows(small_suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    codes = discover(small_suite)
    assert [c.rel for c in codes] == ["broken/push.cu", "nested/deeper/push_atomicBug.cu",
                                      "push.cu", "push_fooBug.cu"]  # fmt: skip
    status, out, _ = check([str(small_suite), "--inputs", str(GRAPHS / "dag_8.egr"),
                            "--blocks", BLOCKS, "--format", "json"], capsys)  # fmt: skip
    assert status == 1
    (s,) = json.loads(out)
    assert (s["tests"], s["expected_racy"], s["found"], s["errors"]) == (4, 1, 1, 2)
    assert (s["missed"], s["false_alarms"]) == (0, 0)
    errors = {e["code"]: e["error"] for e in s["error_codes"]}
    assert set(errors) == {"broken/push.cu", "push_fooBug.cu"}
    broken_line = next(
        i
        for i, line in enumerate((small_suite / "broken" / "push.cu").read_text().splitlines(), 1)
        if "+;" in line
    )
    assert f"push.cu:{broken_line}:" in errors["broken/push.cu"]
    assert "unknown bug tag(s) fooBug" in errors["push_fooBug.cu"]


def test_a_program_that_dies_is_an_error_row_and_its_output_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A program killed by a signal leaves no report: an error row naming the
    signal; one that exits 1 after printing its verdict is a result."""
    root = tmp_path / "suite"
    root.mkdir()
    (root / "abort.cu").write_text(
        "#include <cstdio>\n#include <cstdlib>\n__global__ void k(int* a) { a[0] = 1; }\n"
        "int main() { std::puts(\"about to abort\"); std::abort(); }\n"
    )
    (root / "differ_raceBug.cu").write_text(
        "#include <cstdio>\n__global__ void k(int* a) { a[0] = threadIdx.x; }\n"
        "int main() {\n  int* a;\n  cudaMalloc(&a, 4);\n  k<<<1, 64>>>(a);\n"
        "  cudaDeviceSynchronize();\n  std::puts(\"Verification FAILED\");\n  return 1;\n}\n"
    )
    status, out, _ = check([str(root), "--inputs", str(GRAPHS / "dag_8.egr"), "--args", "",
                            "--format", "json"], capsys)  # fmt: skip
    assert status == 1
    (s,) = json.loads(out)
    assert (s["tests"], s["errors"], s["found"], s["differs"]) == (2, 1, 1, 1)
    (err,) = s["error_codes"]
    assert err["code"] == "abort.cu"
    assert "killed by signal 6 without writing its race report" in err["error"]
    assert s["exit_status"] == {"abort.cu": -6, "differ_raceBug.cu": 1}


def test_a_hang_the_label_predicts_is_judged_and_not_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A program that keeps launching kernels is ended at its deadline or launch
    limit with its report, so a racy livelock code is still found; one that
    hangs without launching is killed (no verdict). Either is an error only
    when the code's label does not say it may never finish."""
    root = tmp_path / "suite"
    root.mkdir()
    launches = (
        "__global__ void k(int* a) {{ a[0] = threadIdx.x; }}\n"
        "int main() {{\n  int* a;\n  cudaMalloc(&a, 4);\n  for (;;) {{\n"
        "    k<<<1, {threads}>>>(a);\n    cudaDeviceSynchronize();\n  }}\n}}\n"
    )
    (root / "spin_raceBug_LivelockBug.cu").write_text(launches.format(threads=64))
    (root / "spin.cu").write_text(launches.format(threads=1))
    (root / "stuck_LivelockBug.cu").write_text(
        "#include <atomic>\nstd::atomic<int> forever{1};\n"
        "int main() { while (forever.load()) {} }\n"
    )
    status, out, _ = check([str(root), "--inputs", str(GRAPHS / "dag_8.egr"), "--args", "",
                            "--timeout", "4", "--format", "json"], capsys)  # fmt: skip
    assert status == 1
    (s,) = json.loads(out)
    assert (s["tests"], s["hung"], s["hung_unexpected"], s["errors"]) == (3, 3, 1, 1)
    assert (s["expected_racy"], s["found"], s["false_alarms"]) == (1, 1, 0)
    assert [e["code"] for e in s["error_codes"]] == ["spin.cu"]
    assert "did not finish (ended at its deadline or launch limit)" in s["error_codes"][0]["error"]
    status, out, _ = check([str(root), "--inputs", str(GRAPHS / "dag_8.egr"), "--args", "",
                            "--timeout", "4"], capsys)  # fmt: skip
    assert "spin_raceBug_LivelockBug.cu on " in out
    assert ": as labelled (LivelockBug); ended at its deadline or launch limit" in out
    assert "stuck_LivelockBug.cu on " in out and "killed, no verdict" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--inputs", "missing.egr"], "missing.egr: no such input file"),
        (["--inputs", "{dag}", "--threads", "2000"], "--threads 2000"),
        (["--inputs", "{dag}", "--jobs", "0"], "--jobs 0"),
        (["--inputs", "{dag}", "{dag}"], "given twice"),
        (["--inputs", "{dag}", "--format", "sarif"], "--format sarif"),
        (["--inputs", "{dag}", "--args", "{input} {nodes}"], "bad placeholder 'nodes'"),
        (["--inputs", "{dag}", "--args", "'unclosed"], "--args"),
        (["--inputs", "{dag}", "--differs", "("], "--differs '(': not a regular expression"),
        (["--inputs", "{dag}", "-I", "no/such/dir"], "-I no/such/dir: no such directory"),
        (["--inputs", "{dag}", "--timeout", "0"], "--timeout 0"),
        (["--blocks", "4"], "--blocks applies to suites only"),
        (["--inputs", "{dag}", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    subs = {"{dag}": str(GRAPHS / "dag_8.egr")}
    argv = [subs.get(a, a) for a in argv]
    target = str(SUITE) if argv[0] != "--blocks" else str(SUITE / "push.cu")
    try:
        status = main(["check", target, *argv])
    except SystemExit as exc:  # argparse's own usage errors
        status = exc.code
    assert status == 2
    err = capsys.readouterr().err
    assert message in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1


# ------------------------------------------------------ interruption and resume


def _wait_rows(db: Path, at_least: int, proc: subprocess.Popen) -> int:
    """Poll the database (written by another process) until it has rows."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        if db.exists():
            try:
                with sqlite3.connect(db) as con:
                    n = con.execute("SELECT count(*) FROM runs").fetchone()[0]
            except sqlite3.OperationalError:
                n = 0
            if n >= at_least:
                return n
        time.sleep(0.05)
    raise AssertionError("no rows appeared")


@pytest.fixture
def resumable_suite(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    root.mkdir()
    for name in ("indigo_cuda.h", "push.cu", "push_atomicBug.cu", "push_raceBug.cu", "relax.cu",
                 "relax_syncBug.cu", "edge_boundsBug.cu"):  # fmt: skip
        shutil.copy(SUITE / name, root / name)
    # A race-free code whose host side takes 1.5 s per input, so that a run
    # is still going when the test interrupts it: with warm build caches the
    # other codes' runs take milliseconds, and CI saw all of them saved before
    # the signal landed.
    slow = (SUITE / "push.cu").read_text()
    head = "void serial_code(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)\n{\n"
    assert head in slow
    slow = "#include <unistd.h>\n" + slow.replace(head, head + "  usleep(1500000);\n")
    (root / "push_slow.cu").write_text(slow)
    return root


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupted_run(suite: Path, db: Path, sig: int) -> tuple[list[str], int, int, str]:
    """Start a suite run, send `sig` once two rows are saved; (argv, rows saved,
    exit status, stderr)."""
    inputs = [str(GRAPHS / g) for g in INPUTS]
    argv = [str(suite), "--inputs", *inputs, "--blocks", BLOCKS, "--jobs", "2",
            "--db", str(db), "--format", "json"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # At the lowest priority (its workers inherit it), so that on a loaded
    # machine this process sends the signal before the run can finish.
    # SIGINT at its default disposition, as in a terminal: a test suite run as
    # a background job of a non-interactive shell inherits it ignored, and
    # Python then installs no KeyboardInterrupt handler (the run would finish).
    proc = subprocess.Popen(["nice", "-n", "19", sys.executable, "-m", "hirace_py.cli", "check",
                             *argv], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,
                            preexec_fn=_default_sigint)  # fmt: skip
    try:
        _wait_rows(db, 2, proc)
        if sig == signal.SIGKILL:
            os.killpg(proc.pid, signal.SIGKILL)  # the whole run: parent and workers
        else:
            os.kill(proc.pid, signal.SIGINT)  # the parent only, as a Ctrl-C would reach it
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return argv, len(rows(db)), proc.returncode, err


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_interrupted_run_resumes(
    resumable_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], sig: int
) -> None:
    total = 7 * len(INPUTS)
    db = tmp_path / "runs.sqlite"
    argv, saved, returncode, err = _interrupted_run(resumable_suite, db, sig)
    assert 2 <= saved < total
    if sig == signal.SIGINT:
        assert returncode == 130
        assert f"interrupted after {saved} of {total} runs" in err
    status, out, err = check(argv, capsys)
    assert f"{saved} runs reused from {db}, {total - saved} to run" in err
    assert status == 0
    assert len(rows(db)) == total
    for s in json.loads(out):
        assert (s["tests"], s["found"], s["missed"], s["false_alarms"], s["errors"]) == (
            7, 3, 0, 0, 0
        )  # fmt: skip


def test_a_dead_worker_turns_its_unfinished_runs_into_error_rows() -> None:
    """Kill a worker when the first row arrives: every run still gets exactly
    one row (how many are error rows depends on what the worker had sent)."""
    codes = discover(SUITE)
    picked = [c for c in codes if c.rel in ("push.cu", "push_raceBug.cu", "relax.cu",
                                            "relax_syncBug.cu")]  # fmt: skip
    inputs = [load_input(GRAPHS / g) for g in INPUTS[:2]]
    settings = Settings(256, int(BLOCKS), "cpu", Config())
    prepare(settings)
    pool = Pool(2, inputs, settings)
    got: list[RunResult] = []

    def sink(row: RunResult) -> None:
        if not got:
            os.kill(pool.workers[0].process.pid, signal.SIGKILL)
        got.append(row)

    pool.run([Task(c, (0, 1)) for c in picked], sink)
    assert sorted((r.code, r.input) for r in got) == sorted(
        (c.rel, d.name) for c in picked for d in inputs
    )
    died = [r for r in got if r.error]
    assert all(r.error.startswith("the worker process running this code died") for r in died)
    assert all(r.error == "" or r in died for r in got)
    assert pool.workers == []


# ----------------------------------------------------------------- progress bar


def test_progress_writes_whole_lines_off_a_terminal() -> None:
    stream = io.StringIO()
    bar = Progress(3, enabled=True, stream=stream)
    for _ in range(3):
        bar.advance()
    bar.close()
    text = stream.getvalue()
    assert "\r" not in text and "\x1b" not in text
    assert text.endswith("3/3 runs, done in 0s\n")
    quiet = io.StringIO()
    off = Progress(3, enabled=False, stream=quiet)
    off.advance()
    off.close()
    assert quiet.getvalue() == ""
