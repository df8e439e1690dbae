"""The footprint scan after each launch (templates/hirace_host.h.j2,
`footprint`): a program (tests/footprint/runs.cu) leaves a known
pattern of untouched, read, written and read-then-written units in one
array's shadow, in runs of 1 to 40 units, in each of three launches; the dump
must list, per launch, exactly the runs of read and of written units the
pattern gives. The runs straddle the scan's eight-word steps in every way,
and a unit one launch wrote must not show in the next launch's footprint (on
the CPU backend the scan clears the shadow for the next launch)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hirace_py import dump, host_events, program
from hirace_py.program import BuildOptions

HERE = Path(__file__).parent / "footprint"


def expected_runs(ops: str, alloc: int) -> list[tuple[int, int, int, str]]:
    """Runs of units of one class: op 1 reads (R), 2 and 3 write (W), 0 leaves untouched."""
    classes = [None if o == "0" else "R" if o == "1" else "W" for o in ops]
    runs: list[tuple[int, int, int, str]] = []
    for u, c in enumerate(classes):
        if c is None:
            continue
        if runs and runs[-1][2] == u and runs[-1][3] == c:
            runs[-1] = (alloc, runs[-1][1], u + 1, c)
        else:
            runs.append((alloc, u, u + 1, c))
    return runs


def _build(source: str, output: Path) -> None:
    """Build tests/footprint's `source` for the CPU, from inside that folder."""
    old = os.getcwd()
    os.chdir(HERE)
    try:
        program.build(BuildOptions(sources=(Path(source),), output=output, cpu=True))
    finally:
        os.chdir(old)


@pytest.fixture(scope="module")
def dumped(tmp_path_factory: pytest.TempPathFactory) -> tuple[host_events.HostRecord, list[str]]:
    where = tmp_path_factory.mktemp("footprint")
    _build("runs.cu", where / "runs")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    env["HIRACE_DUMP"] = str(where / "dump.json")
    run = subprocess.run([str(where / "runs")], capture_output=True, text=True, timeout=120,
                         env=env, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    record = host_events.read(dump.read_document(where / "dump.json"))
    return record, run.stdout.split()


def test_each_launch_lists_the_runs_its_accesses_left(
    dumped: tuple[host_events.HostRecord, list[str]],
) -> None:
    record, patterns = dumped
    ids = {a.name: a.id for a in record.allocations}
    launches = [e for e in record.events if isinstance(e, host_events.Launch)]
    assert len(launches) == len(patterns) == 3
    n = len(patterns[0])
    for launch, ops in zip(launches, patterns, strict=True):
        assert launch.footprint is not None
        data = [r for r in launch.footprint if r[0] == ids["data"]]
        assert data == expected_runs(ops, ids["data"])
        # every thread read its op
        assert [r for r in launch.footprint if r[0] == ids["op"]] == [(ids["op"], 0, n, "R")]


def test_the_pattern_has_every_kind_of_run(
    dumped: tuple[host_events.HostRecord, list[str]],
) -> None:
    """The generator's runs give the scan's cases: short and long runs of each op."""
    _, patterns = dumped
    lengths: dict[str, set[int]] = {o: set() for o in "0123"}
    for ops in patterns:
        start = 0
        for u in range(1, len(ops) + 1):
            if u == len(ops) or ops[u] != ops[start]:
                lengths[ops[start]].add(u - start)
                start = u
    assert all(min(v) < 8 and max(v) > 16 for v in lengths.values())


@pytest.mark.parametrize("dump_wanted", [False, True])
def test_the_next_launch_finds_the_shadow_clear(tmp_path: Path, dump_wanted: bool) -> None:
    """Without a dump the scan keeps no runs but still clears the shadow: the
    second launch's writes, by threads of other blocks than the first's, race
    with nothing (a shadow left as the first launch wrote it reports a race)."""
    _build("relaunch.cu", tmp_path / "relaunch")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    env["HIRACE_EXITCODE"] = "1"
    if dump_wanted:
        env["HIRACE_DUMP"] = str(tmp_path / "dump.json")
    run = subprocess.run([str(tmp_path / "relaunch")], capture_output=True, text=True,
                         timeout=120, env=env, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    if dump_wanted:
        record = host_events.read(dump.read_document(tmp_path / "dump.json"))
        data = next(a.id for a in record.allocations if a.name == "data")
        launches = [e for e in record.events if isinstance(e, host_events.Launch)]
        assert [e.footprint for e in launches] == [((data, 0, 4096, "W"),)] * 2
    else:
        assert "0 race record(s)" in run.stderr


def test_the_scan_clears_every_page_a_launch_marked(tmp_path: Path) -> None:
    """Without a dump the CPU scan clears only the shadow pages whose page map
    entry a first access marked: a launch writing one unit on each of 64
    scattered pages, then one writing the same units from other blocks,
    races with nothing (a page left uncleared reports its unit as a race)."""
    _build("sparse.cu", tmp_path / "sparse")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    env["HIRACE_EXITCODE"] = "1"
    run = subprocess.run([str(tmp_path / "sparse")], capture_output=True, text=True,
                         timeout=120, env=env, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "0 race record(s)" in run.stderr and "2 instrumented launch(es)" in run.stderr


@pytest.fixture(scope="module")
def strided(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("strided")
    _build("strided.cu", where / "strided")
    return where / "strided"


@pytest.mark.parametrize("extra", [0, 1], ids=["at-the-limit", "past-it"])
def test_a_footprint_past_the_run_limit_becomes_one_range(
    strided: Path, tmp_path: Path, extra: int
) -> None:
    """A launch writing every other unit leaves one run per write: up to
    FOOTPRINT_RUNS they are kept exactly (and the gaps the copy back reads are
    uninitialised-read findings); one more, and the allocation's footprint is
    the one range the launch touched, counted by a notice, and only the bytes
    past that range can still be judged."""
    m = host_events.FOOTPRINT_RUNS + extra
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    env["HIRACE_DUMP"] = str(tmp_path / "dump.json")
    run = subprocess.run([str(strided), str(m)], capture_output=True, text=True, timeout=120,
                         env=env, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    record = host_events.read(dump.read_document(tmp_path / "dump.json"))
    (data,) = record.allocations
    assert data.gran_log2 == 2, "one shadow unit per int: the pattern assumes it"
    (launch,) = [e for e in record.events if isinstance(e, host_events.Launch)]
    report = dump.load(tmp_path / "dump.json")
    notices = {n.code: n.count for n in report.notices}
    (finding,) = report.host
    assert finding.kind == "uninitialised-read"
    if extra == 0:
        assert launch.footprint == tuple((data.id, 2 * i, 2 * i + 1, "W") for i in range(m))
        assert "coarse-footprint" not in notices
        assert (finding.lo, finding.hi, finding.count) == (4, 8 * m, m)
    else:
        coarse = host_events.FOOTPRINT_COARSE
        assert launch.footprint == ((data.id, 0, 2 * m - 1, coarse),)
        assert notices["coarse-footprint"] == 1
        assert (finding.lo, finding.hi, finding.count) == (4 * (2 * m - 1), 8 * m, 1)
