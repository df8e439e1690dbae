"""The binary host record file (hirace_py.host_record): appended as the calls
happen, so a program killed before its dump keeps what it recorded; a cut or
damaged record is a one-line error, never a traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import numpy as np
import pytest
import xxhash

from hirace_py import dump, host_record, program
from hirace_py.errors import InputError
from hirace_py.program import BuildOptions

HERE = Path(__file__).parent / "hostrecord"


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory where tests/hostrecord/killed.cu ran and was killed."""
    where = tmp_path_factory.mktemp("killed")
    program.build(BuildOptions(sources=(HERE / "killed.cu",), output=where / "killed",
                               cpu=True))  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    env["HIRACE_DUMP"] = str(where / "dump.json")
    run = subprocess.run([str(where / "killed")], capture_output=True, text=True, timeout=120,
                         env=env, check=False)  # fmt: skip
    assert run.returncode == -signal.SIGKILL, run.stderr
    return where


def test_a_killed_program_keeps_every_call_it_recorded(killed: Path):
    assert not (killed / "dump.json").exists()
    sites, events, _ = host_record.read(killed / "dump.json.host")
    ops = [e["op"] for e in events]
    assert ops == ["alloc", "memcpy", "memcpy", "memcpy"]
    lines = [sites[e["site"]][1] for e in events]
    assert lines == [10, 13, 13, 13]
    for k, e in enumerate(events[1:]):
        data = np.arange(k * 64, (k + 1) * 64, dtype=np.float32).tobytes()
        assert e["bytes"] == 256 and e["dst"][2] == 256 * k
        assert int(e["hash"], 16) == xxhash.xxh3_64_intdigest(data)


def test_a_cut_record_is_read_up_to_its_last_whole_chunk(killed: Path, tmp_path: Path):
    data = (killed / "dump.json.host").read_bytes()
    _, events, _ = host_record.read(killed / "dump.json.host")
    end = len(data.rstrip(b"\0"))
    cut = tmp_path / "cut.host"
    cut.write_bytes(data[: end - 8])  # the last event chunk loses its tail
    with pytest.raises(ValueError, match="cut or damaged"):
        host_record.read(cut)
    cut.write_bytes(data[:end] + bytes(4096))  # zero-filled past the end: the end
    assert host_record.read(cut)[1] == events


def test_a_damaged_record_is_a_one_line_input_error(tmp_path: Path):
    doc = {"format": dump.FORMAT, "version": dump.VERSION, "host": {"record": "d.host"}}
    (tmp_path / "d.json").write_text(json.dumps(doc))
    (tmp_path / "d.host").write_bytes(b"NOTMAGIC" + bytes(16))
    with pytest.raises(InputError, match=r"d\.json: a damaged host record"):
        dump.read_document(tmp_path / "d.json")
    (tmp_path / "d.host").unlink()
    with pytest.raises(InputError, match=r"d\.json: cannot read its host record"):
        dump.read_document(tmp_path / "d.json")
