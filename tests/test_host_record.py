"""The host record (hirace_py.host_events, templates/hirace_host.h.j2): a program
that makes each kind of recorded call once (tests/profile/record.cu, `// op:`
naming the event of each line) is built for the CPU with its kernels
instrumented and run; its record must list those calls in order with their
sites, arguments, statuses and content hashes (checked against the Python
xxhash package: the runtime hashes with libxxhash's XXH3-64; built with
HIRACE_HASH_EVERY_COPY, so that every kind of copy is hashed, including
those no pattern compares, tests/test_profile.py), and the launch's
footprint must be what the kernel read and wrote. The same program must build
with nvcc (the GPU path of the same header)."""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import xxhash

from hirace_py import dump, host_events, program
from hirace_py.host_events import Copy, HostRecord, Launch
from hirace_py.program import BuildOptions

PROFILE = Path(__file__).parent / "profile"
SOURCE = PROFILE / "record.cu"
_OP = re.compile(r"//\s*op:\s*(\w+)")


def _build(output: Path, cpu: bool) -> None:
    old = os.getcwd()
    os.chdir(PROFILE)
    try:
        program.build(BuildOptions(sources=(Path("record.cu"),), output=output, cpu=cpu,
                                   defines={"HIRACE_HASH_EVERY_COPY": 1}))  # fmt: skip
    finally:
        os.chdir(old)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, HostRecord, str]:
    where = tmp_path_factory.mktemp("record")
    _build(where / "record", cpu=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    dump_env = {**env, "HIRACE_DUMP": str(where / "dump.json")}
    run = subprocess.run([str(where / "record")], capture_output=True, text=True, timeout=120,
                         env=dump_env, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    doc = dump.read_document(where / "dump.json")
    return doc, host_events.read(doc), run.stdout


def _marked() -> list[tuple[str, int]]:
    """(op, line of the call's first line) for every `// op:` marker."""
    lines = SOURCE.read_text().splitlines()
    out = []
    for n, line in enumerate(lines, 1):
        if m := _OP.search(line):
            start = n
            while not re.match(r"\s*(cuda\w*\(|fill<<<|cudaError_t )", lines[start - 1]):
                start -= 1
            out.append((m.group(1), start))
    return out


def test_events_are_the_calls_in_program_order(recorded: tuple[dict, HostRecord, str]) -> None:
    _, record, stdout = recorded
    assert stdout == "3 35 1 0\n"  # the program itself behaves as without hirace
    events = record.events
    assert [(e.op, e.site.line if e.site else 0) for e in events[:-1]] == _marked()
    assert events[-1].op == "exit" and events[-1].site is None
    assert [e.seq for e in events] == list(range(len(events)))
    assert all(e.thread == 0 for e in events)
    assert all(a.start_ns <= b.start_ns for a, b in itertools.pairwise(events))
    assert all(e.site.file == "record.cu" and e.site.function == "main"
               for e in events if e.site)  # fmt: skip
    # Only `cudaError_t err = cudaGetLastError()` keeps the value it returns.
    assert [e.op for e in events if e.site and not e.site.discarded] == ["get_last_error"]


def test_places_streams_and_statuses(recorded: tuple[dict, HostRecord, str]) -> None:
    _, record, _ = recorded
    # __device__ variables are registered at the first recorded call.
    kinds = {a.name: (a.id, a.kind, a.bytes) for a in record.allocations}
    assert kinds == {"table": (0, "symbol", 16), "in": (1, "device", 256),
                     "out": (2, "device", 256), "pinned": (3, "pinned", 256)}  # fmt: skip
    assert all(a.gran_log2 == 2 for a in record.allocations)
    by_op = {op: [e for e in record.events if e.op == op] for op in host_events.OPS}
    (created,) = by_op["stream_create"]
    stream = created["created"]
    assert created["flags"] == 1 and stream != 0
    symbol, h2d, default = (e for e in record.copies if e.op == "memcpy")
    assert isinstance(h2d, Copy) and h2d.stream == stream and h2d["async"]
    assert (h2d.dst.alloc, h2d.dst.offset, h2d.src.alloc, h2d.bytes) == (1, 0, None, 256)
    assert symbol.symbol == "table" and symbol.dst.alloc == 0
    assert default.kind == "Default" and default.direction(record.allocations) == "DeviceToHost"
    assert by_op["memset"][0]["dst"] == [by_op["alloc"][1]["ptr"], 2, 0]
    (wait,) = by_op["stream_wait_event"]
    (event,) = by_op["event_create"]
    (recorded_event,) = by_op["event_record"]
    assert wait["stream"] == 0 and wait["event"] == event["event"] == recorded_event["event"]
    assert by_op["host_fn"][0]["stream"] == stream
    frees = by_op["free"]
    assert [f["ptr"][1] for f in frees] == [3, 1, 2, None]  # the last frees `out` again
    assert [f.status for f in frees] == [0, 0, 0, 1]  # cudaErrorInvalidValue


def test_hashes_are_xxh3_of_the_bytes_copied(recorded: tuple[dict, HostRecord, str]) -> None:
    _, record, _ = recorded
    assert record.hashing
    symbol, h2d, default = (e for e in record.copies if e.op == "memcpy")
    (rows,) = (e for e in record.copies if e.op == "memcpy2d")
    assert h2d.hash == xxhash.xxh3_64_intdigest(np.arange(64, dtype=np.int32).tobytes())
    assert symbol.hash == xxhash.xxh3_64_intdigest(np.array([1, 2, 3, 4], np.int32).tobytes())
    out = np.zeros(64, np.int32)
    out[:32] = np.arange(32) + np.array([1, 2, 3, 4] * 8)
    assert default.hash == xxhash.xxh3_64_intdigest(out.tobytes())
    # A 2D copy hashes its rows (4 ints of every 8) as one stream of bytes.
    assert rows.hash == xxhash.xxh3_64_intdigest(out.reshape(8, 8)[:, :4].tobytes())
    assert (rows["width"], rows["height"], rows.bytes) == (16, 8, 128)


def test_launch_arguments_and_footprint(recorded: tuple[dict, HostRecord, str]) -> None:
    doc, record, _ = recorded
    (launch,) = record.launches
    assert isinstance(launch, Launch) and launch.kernel == "fill" and launch.launch == 0
    assert [(a.alloc, a.readonly) for a in launch.args] == [(2, False), (1, True)]
    # Threads 0..31 write out[0..32) and read in[0..32) and every table entry.
    assert sorted(launch.footprint or ()) == [(0, 0, 4, "R"), (1, 0, 32, "R"), (2, 0, 32, "W")]
    assert doc["launches"][0]["tracked"]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_the_gpu_build_of_the_same_program_compiles(tmp_path: Path) -> None:
    _build(tmp_path / "record", cpu=False)
    assert (tmp_path / "record").is_file()
