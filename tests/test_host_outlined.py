"""The host runtime is compiled once per runtime, not in every program unit.

templates/hirace_host.h.j2's entry functions (HIRACE_HOST_FN) are declared
only in an instrumented unit built with the precompiled instrumented header,
and defined in the runtime's libhirace_host.a (docs/performance.md, "Indigo
suites"). What must hold: no unit object defines them, the program defines
each exactly once, and it still records and reports (the whole-program
behaviour, races included, is tests/test_programs.py's).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from hirace_py.program import BuildOptions, build

PROGRAMS = Path(__file__).parent / "programs"
ENTRIES = ("before_launch", "after_launch", "at_exit", "add_allocation", "register_symbols")

pytestmark = pytest.mark.skipif(shutil.which("nm") is None, reason="needs nm (binutils)")


def _symbols(path: Path) -> list[tuple[str, str]]:
    """(type letter, demangled name) of every symbol of an object or program."""
    out = subprocess.run(["nm", "-C", str(path)], capture_output=True, text=True, check=True)
    found = []
    for line in out.stdout.splitlines():
        parts = line.split(maxsplit=2)
        if len(parts) == 3:
            found.append((parts[1], parts[2]))
        elif len(parts) == 2:
            found.append((parts[0], parts[1]))
    return found


def _defined(symbols: list[tuple[str, str]], entry: str) -> list[str]:
    """Type letters of the code definitions (not its static locals) of hirace::host::`entry`."""
    return [kind for kind, name in symbols
            if kind in "TtWw" and name.startswith(f"hirace::host::{entry}(")
            and ")::" not in name]  # fmt: skip


def test_units_declare_the_host_runtime_and_the_program_defines_it_once(tmp_path: Path) -> None:
    src = tmp_path / "multifile"
    shutil.copytree(PROGRAMS / "multifile", src)
    output = tmp_path / "program"
    build(BuildOptions(sources=(src / "main.cu", src / "kernels.cu"), output=output, cpu=True,
                       optimize="-Og"))  # fmt: skip
    objects = sorted(output.with_name("program.hirace").glob("*.o"))
    assert [o.stem for o in objects] == ["kernels", "main"]
    for obj in objects:
        symbols = _symbols(obj)
        for entry in ENTRIES:
            assert _defined(symbols, entry) == [], f"{obj.name} compiles {entry}"
    program = _symbols(output)
    for entry in ENTRIES:
        assert _defined(program, entry) == ["T"], entry
    dump = tmp_path / "dump"
    run = subprocess.run([str(output), "500"], capture_output=True, text=True, timeout=120,
                         env={"HIRACE_DUMP": str(dump), "PATH": "/usr/bin:/bin"})  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "racy" in run.stdout
    assert '"launches"' in dump.read_text()
