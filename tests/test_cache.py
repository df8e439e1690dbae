"""`build_once`: of several processes wanting the same thing one builds it and
the others reuse it; a failed build leaves nothing; a stale target is
replaced whole. `write_if_changed` leaves an unchanged file alone."""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from pathlib import Path

import pytest

from hirace_py.cache import build_once, write_if_changed


def _build_slowly(target: str, log: str) -> None:
    def build(scratch: Path) -> None:
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")
        scratch.mkdir()
        time.sleep(0.3)  # long enough for the other processes to queue on the lock
        (scratch / "part").write_text("first half")
        (scratch / "done").write_text("")

    build_once(Path(target), build, "done")
    # Whoever returns sees a finished build, never a half-made one.
    assert (Path(target) / "part").read_text() == "first half"


def test_concurrent_processes_build_once(tmp_path: Path) -> None:
    target, log = tmp_path / "thing", tmp_path / "builds.log"
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_build_slowly, args=(str(target), str(log))) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    assert len(log.read_text().split()) == 1
    assert sorted(x.name for x in tmp_path.iterdir()) == ["builds.log", "thing"]


def test_a_failed_build_leaves_nothing_and_the_next_one_builds(tmp_path: Path) -> None:
    target = tmp_path / "lib.so"

    def fail(scratch: Path) -> None:
        scratch.write_bytes(b"half")
        raise RuntimeError("compiler said no")

    with pytest.raises(RuntimeError, match="compiler said no"):
        build_once(target, fail)
    assert [p.name for p in tmp_path.iterdir()] == ["lib.so.lock"]  # no scratch, no target
    build_once(target, lambda scratch: scratch.write_bytes(b"whole"))
    assert target.read_bytes() == b"whole"
    build_once(target, fail)  # already there: not built again
    assert target.read_bytes() == b"whole"


def test_a_stale_directory_without_its_marker_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "runtime"
    target.mkdir()
    (target / "leftover").write_text("from a build that died")

    def build(scratch: Path) -> None:
        scratch.mkdir()
        (scratch / "library").write_text("new")

    build_once(target, build, "library")
    assert sorted(p.name for p in target.iterdir()) == ["library"]


def test_write_if_changed_keeps_an_unchanged_file(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "header.h"
    write_if_changed(path, "one")
    before = path.stat().st_mtime_ns, path.stat().st_ino
    time.sleep(0.01)
    write_if_changed(path, "one")
    assert (path.stat().st_mtime_ns, path.stat().st_ino) == before
    write_if_changed(path, "two")
    assert path.read_text() == "two" and path.stat().st_ino != before[1]
    assert sorted(p.name for p in path.parent.iterdir()) == ["header.h"]
