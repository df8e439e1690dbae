"""A suite run on a Dask cluster (`--scheduler`) gives the table one machine
gives, stores its rows as they come and resumes; a scheduler that cannot be
reached is one error line (after the run's own notes), exit 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from distributed import LocalCluster

from hirace_py.cli import main
from hirace_py.indigo import cluster

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "indigo" / "minisuite"
GRAPH = ROOT / "indigo" / "graphs" / "counter_dag_8.egr"
CODES = ("indigo_cuda.h", "push.cu", "push_raceBug.cu", "relax_syncBug.cu", "edge_boundsBug.cu")


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    root.mkdir()
    for name in CODES:
        shutil.copy(SUITE / name, root / name)
    return root


def argv(suite: Path, db: Path) -> list[str]:
    return ["check", str(suite), "--inputs", str(GRAPH), "--blocks", "16", "--format", "json",
            "--db", str(db)]  # fmt: skip


def test_a_cluster_run_gives_the_table_of_one_machine_and_resumes(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv(suite, tmp_path / "one.sqlite"), "--jobs", "1"]) == 0
    alone = json.loads(capsys.readouterr().out)
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as lc:
        on_cluster = [*argv(suite, tmp_path / "c.sqlite"), "--scheduler", lc.scheduler_address]
        assert main(on_cluster) == 0
        out, err = capsys.readouterr()
        assert "0 runs reused" in err and "4 to run" in err
        assert json.loads(out) == alone
        assert alone[0]["found"] == 2 and alone[0]["bounds"] == 1
        # Everything is in the database: a rerun runs nothing and prints the same.
        assert main(on_cluster) == 0
        out, err = capsys.readouterr()
        assert "4 runs reused" in err and "0 to run" in err
        assert json.loads(out) == alone


def test_an_unreachable_scheduler_is_one_line(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 2)
    code = main([*argv(suite, tmp_path / "r.sqlite"), "--scheduler", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 2
    errors = [line for line in err.splitlines() if line.startswith("hirace: error:")]
    assert len(errors) == 1 and "--scheduler tcp://127.0.0.1:9: cannot connect" in errors[0]
    assert "Traceback" not in err
