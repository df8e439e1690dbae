"""libcu++ atomics: what the instrumenter makes of them, what the oracle and the
runtime say, and the CPU backend's own <cuda/atomic>.

docs/semantics.md 1.2 and 1.6, docs/instrumentation.md ("libcu++ atomics").
The litmus cases of kernels/libcu/ check scopes, forms and a relaxed ticket
against exact line pairs; here:

- every operation's access site carries the action (scope) and memory order
  the semantics give it, read from tags in tests/libcu_kernels/ordered.cu;
- the oracle, on traces whose atomic events are built from those sites,
  finds exactly the races the semantics promise: treating an atomic as plain,
  or dropping its scope or order, flips a verdict;
- the runtime, which does not model message passing, reports the data those
  orders protect and says so with a notice (sound, not exact: a future exact
  model flips the first assertion of test_runtime_on_ordered_tickets);
- the CPU backend's atomics compute what CUDA's do, for every member the
  catalogue lists.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import hirace_py
from hirace_py import cuda_api, oracle
from hirace_py.backends import cpu
from hirace_py.instrument import instrument
from hirace_py.instrument.model import Site
from hirace_py.trace import parse

KERNELS = Path(__file__).parent / "libcu_kernels"
ORDERED = KERNELS / "ordered.cu"
SOURCE = ORDERED.read_text()
# The oracle's trace syntax for an atomic's order (docs/semantics.md 1.7).
SUFFIX = {"relaxed": "", "acquire": ".acq", "release": ".rel", "acq_rel": ".ar",
          "seq_cst": ".ar"}  # fmt: skip
RACE_FREE = {"ticket_acq_rel", "ticket_seq_cst", "ticket_fences"}
RACY = {"ticket_release", "ticket_acquire", "ticket_relaxed", "ticket_block_scope"}


def _tags() -> dict[int, tuple[str, str, str]]:
    """line -> (tag, action, order) from the `// [TAG] ACTION [ORDER]` comments."""
    out = {}
    for n, line in enumerate(SOURCE.splitlines(), 1):
        m = re.search(r"//\s*\[(\w+)\]\s+(R|W|BA|GA)(?:\s+(\w+))?\s*$", line)
        if m:
            out[n] = (m[1], m[2], m[3] or "")
    return out


@pytest.fixture(scope="module")
def sites() -> list[Site]:
    return instrument(SOURCE, str(ORDERED)).tables.sites


def _kernel_lines(kernel: str) -> range:
    lines = SOURCE.splitlines()
    start = next(n for n, t in enumerate(lines, 1) if f"__global__ void {kernel}(" in t)
    end = next(n for n in range(start, len(lines) + 1) if lines[n - 1] == "}")
    return range(start, end + 1)


def test_every_tagged_line_has_the_action_and_order_of_the_semantics(sites: list[Site]) -> None:
    tags = _tags()
    assert len(tags) == 15
    for line, (tag, action, order) in tags.items():
        here = [(s.action, s.order) for s in sites if s.line == line]
        assert here == [(action, order)], f"line {line} [{tag}]: {here}"


def _event(sites: list[Site], kernel: str, tag: str) -> str:
    """The trace event of the access tagged `tag` in `kernel`, from its site."""
    tags = _tags()
    lines = [n for n in _kernel_lines(kernel) if tags.get(n, ("",))[0] == tag]
    if tag == "R":  # in the device function gather
        lines = [n for n, t in tags.items() if t[0] == "R"]
    (site,) = [s for s in sites if s.line in lines]
    if site.action in ("R", "W"):
        return site.action
    return site.action + SUFFIX[site.order]


def _trace(sites: list[Site], kernel: str) -> str:
    """Two blocks' thread 0 of `kernel`: block 1 draws the last ticket."""
    w, t, r = (_event(sites, kernel, tag) for tag in ("W", "T", "R"))
    release = "fence {}; " if kernel == "ticket_fences" else ""
    acquire = "fence 1.0.0; " if kernel == "ticket_fences" else ""
    return (f"{w} 0.0.0 @p0; {release.format('0.0.0')}{t} 0.0.0 @n; "
            f"{w} 1.0.0 @p1; {release.format('1.0.0')}{t} 1.0.0 @n; "
            f"{acquire}{r} 1.0.0 @p0; {r} 1.0.0 @p1")  # fmt: skip


@pytest.mark.parametrize("kernel", sorted(RACE_FREE | RACY))
def test_oracle_on_the_instrumented_events(sites: list[Site], kernel: str) -> None:
    verdict = oracle.check(parse(_trace(sites, kernel)))
    assert verdict.racy == (kernel in RACY), _trace(sites, kernel)


def test_the_verdicts_depend_on_order_and_scope(sites: list[Site]) -> None:
    """The same trace with the atomic taken as relaxed, or as plain, or its
    scope as device: each changes a verdict, so none of them can be dropped."""
    ordered = _trace(sites, "ticket_acq_rel")
    assert not oracle.check(parse(ordered)).racy
    assert oracle.check(parse(ordered.replace("GA.ar", "GA"))).racy
    assert oracle.check(parse(ordered.replace("GA.ar", "W"))).racy
    block = _trace(sites, "ticket_block_scope")
    assert oracle.check(parse(block)).racy
    assert not oracle.check(parse(block.replace("BA.ar", "GA.ar"))).racy


def test_fences_are_instrumented_as_fences() -> None:
    text = instrument(SOURCE, str(ORDERED)).source
    body = text[text.index("void ticket_fences(") :]
    # Device-scope release and acquire fences: both take part in message passing.
    assert body.count(".fence(true)") == 2


@pytest.mark.parametrize("kernel", sorted(RACE_FREE | RACY))
def test_runtime_on_ordered_tickets(kernel: str) -> None:
    part, count, out = np.zeros(4, np.int32), np.zeros(1, np.uint32), np.zeros(1, np.int32)
    report = hirace_py.check(SOURCE, kernel, 4, 32, [part, count, out], backend="cpu",
                             filename=str(ORDERED))  # fmt: skip
    launch = report.launches[0]
    tags = {t[0]: n for n, t in _tags().items() if n in _kernel_lines(kernel) or t[0] == "R"}
    pairs = {(r.kind, tuple(sorted((r.first.site.line, r.second.site.line))))
             for r in launch.races if r.first.site and r.second.site}  # fmt: skip
    # The CPU runtime passes the messages of device-scope releases
    # (docs/semantics.md 1.6): the data is reported exactly when the ticket
    # does not order it.
    assert (("read-write", tuple(sorted((tags["W"], tags["R"])))) in pairs) == (kernel in RACY)
    notices = {n.code for n in launch.notices}
    if kernel == "ticket_fences":
        assert "fences" in notices
    elif kernel != "ticket_relaxed":
        assert "ordered-atomics" in notices
    else:
        assert "ordered-atomics" not in notices
    if kernel == "ticket_block_scope":
        assert ("atomic-plain", (tags["T"], tags["T"])) in pairs
    else:
        assert {p for p in pairs if p[0] == "atomic-plain"} == set()
    assert out[0] == 1 + 2 + 3 + 4 and count[0] == 4


# -- the CPU backend's libcu++ -------------------------------------------------

MEMBERS = KERNELS / "members.cu"


# What CUDA's fetch_ members store, written here independently of the
# catalogue's C++ expressions that the CPU header is rendered from.
FETCH = {
    "fetch_add": lambda old, v: old + v,
    "fetch_sub": lambda old, v: old - v,
    "fetch_and": lambda old, v: old & v,
    "fetch_or": lambda old, v: old | v,
    "fetch_xor": lambda old, v: old ^ v,
    "fetch_min": min,
    "fetch_max": max,
}


def test_the_model_covers_the_catalogue() -> None:
    assert set(FETCH) == set(cuda_api.catalogue().libcu.fetch)


@pytest.fixture(scope="module")
def members() -> cpu.Module:
    return cpu.compile(MEMBERS.read_text(), filename=str(MEMBERS))


@pytest.mark.parametrize("name", sorted(FETCH))
@pytest.mark.parametrize("old, v", [(5, 3), (-4, 9), (12, 12)])
def test_cpu_fetch_members_compute_the_catalogue_values(members: cpu.Module, name: str,
                                                        old: int, v: int) -> None:  # fmt: skip
    names = sorted(FETCH)
    cell, returned = np.array([old], np.int32), np.zeros(1, np.int32)
    members.launch("fetch", 1, 1, [cell, returned, names.index(name), v], echo=False)
    assert returned[0] == old and cell[0] == FETCH[name](old, v)


def test_cpu_other_members_and_operators(members: cpu.Module) -> None:
    out, a = np.zeros(16, np.int32), np.zeros(1, np.int32)
    members.launch("others", 1, 1, [out, a], echo=False)
    # The sequence of members.cu, step by step: 7 stored, loaded twice; 9
    # assigned, loaded; exchanged for 1; 1 loaded; exchanged 1 -> 11; a weak
    # exchange expecting 3 fails and leaves 11 in `expected`; ++ gives 12; --
    # returns 12 and leaves 11; += 2 is 13, -= 8 is 5, &= 7 is 5, |= 2 is 7,
    # ^= 3 is 4; wait(0) returns at once; lock-free.
    assert list(out) == [7, 7, 9, 9, 1, 11, 0, 11, 12, 12, 13, 5, 5, 7, 4, 1]
    assert a[0] == 4


def test_every_catalogue_member_is_classified_in_the_toolkit_parse() -> None:
    """members.cu calls every member of the catalogue on a cuda::atomic parsed
    with the toolkit's headers: each call is one atomic site, none warned."""
    inst = instrument(MEMBERS.read_text(), str(MEMBERS))
    assert not [w for w in inst.tables.warnings if w.code in ("system-code", "atomic-member")]
    kinds = cuda_api.catalogue().libcu.members
    lines = MEMBERS.read_text().splitlines()
    # A load is a device-scope atomic load (GL), every other kind an atomic (GA).
    sited = {a: {s.line for s in inst.tables.sites if s.action == a} for a in ("GA", "GL")}
    tagged = {n: t.partition("// all: ")[2].split(", ") for n, t in enumerate(lines, 1)}
    for member, kind in kinds.items():
        used = [n for n, names in tagged.items() if member in names]
        assert used, f"members.cu does not use {member}"
        if kind != "none":
            action = "GL" if kind == "load" else "GA"
            assert any(n in sited[action] for n in used), f"{member} is not a {action} site"
