"""Hash while copying (templates/hirace_host.h.j2, HashingWatch): on the CPU
backend a copy larger than one chunk is hashed chunk by chunk as it is made.
The streamed hash must equal XXH3-64 of the whole copy (Python's xxhash),
whatever the chunk size: tests/hostrecord/large_copies.cu copies sizes that are
no multiple of a chunk, built with the default chunk and with an odd one."""

from __future__ import annotations

import itertools
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import xxhash

from hirace_py import dump, host_events, program
from hirace_py.config import Config
from hirace_py.program import BuildOptions

SOURCE = Path(__file__).parent / "hostrecord" / "large_copies.cu"


def _recorded(source: Path, tmp_path: Path, defines: dict[str, str | int | None]
              ) -> host_events.HostRecord:  # fmt: skip
    """`source` built for the CPU backend with host recording and `defines`, run
    (it must exit 0), and the host record it wrote."""
    exe = tmp_path / source.stem
    program.build(BuildOptions(sources=(source,), output=exe, cpu=True,
                               config=Config(kernels=()), defines=defines))  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    env["HIRACE_DUMP"] = str(tmp_path / "dump.json")
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, env=env,
                         check=False)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    return host_events.read(dump.read_document(tmp_path / "dump.json"))


@pytest.mark.parametrize("chunk", [None, 1000])
def test_streamed_hash_is_xxh3_of_the_whole_copy(tmp_path: Path, chunk: int | None) -> None:
    # Hashing copies (not comparing them, the CPU backend's way for `hirace profile`).
    defines: dict[str, str | int | None] = {"HIRACE_HASH_COPIES": 1}
    if chunk is not None:
        defines["HIRACE_HASH_CHUNK"] = chunk
    record = _recorded(SOURCE, tmp_path, defines)
    words = (np.arange(25001, dtype=np.uint64) * 2654435761 % 2**32).astype(np.uint32)
    data = words.tobytes()
    copies = [e for e in record.copies if e.op.startswith("memcpy")]
    assert [(e.bytes, e.hash) for e in copies] == [
        (len(data) - 1, xxhash.xxh3_64_intdigest(data[:-1])),
        (12345, xxhash.xxh3_64_intdigest(data[:12345])),
        (len(data) - 1, xxhash.xxh3_64_intdigest(data[:-1])),
    ]


COMPARED = Path(__file__).parent / "hostrecord" / "large_compared.cu"


@pytest.mark.parametrize("chunk", [None, 1000])
def test_compared_copies_arrive_whole_and_equal_ones_share_an_id(
    tmp_path: Path, chunk: int | None
) -> None:
    """Compared instead of hashed (`hirace profile`'s CPU build): a copy that
    differs from what its place holds only in its first, a middle or its last
    chunk arrives whole (the program checks), and copies get the same content
    id exactly when their bytes are those of the copy before them."""
    defines: dict[str, str | int | None] = {} if chunk is None else {"HIRACE_HASH_CHUNK": chunk}
    record = _recorded(COMPARED, tmp_path, defines)
    assert record.compared
    ids = [c.hash for c in record.copies if c.kind == "HostToDevice"]
    assert None not in ids and len(ids) == 6
    assert [a == b for a, b in itertools.pairwise(ids)] == [True, False, False, False, True]
    assert len(set(ids)) == 4
