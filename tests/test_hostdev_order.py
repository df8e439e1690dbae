"""The vector-clock order of host threads and streams (hirace_py.hostdev.order)
against a brute-force happens-before: the transitive closure of the rules of
docs/semantics.md section 6.2, written here directly as graph edges."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from hirace_py.hostdev.order import Order, Stamp, hb

THREADS = (0, 1, 2)
HANDLES = (0, 0x1, 0x2, 0x100, 0x200)
EVENTS = (7, 8)
MUTEXES = (50, 51)

Op = tuple


def op_strategy() -> st.SearchStrategy[Op]:
    t = st.sampled_from(THREADS)
    h = st.sampled_from(HANDLES)
    e = st.sampled_from(EVENTS)
    return st.one_of(
        st.tuples(st.just("host"), t),
        st.tuples(st.just("enq"), t, h),
        st.tuples(st.just("rec"), t, e, h),
        st.tuples(st.just("wait"), t, h, e),
        st.tuples(st.just("ssync"), t, h),
        st.tuples(st.just("esync"), t, e),
        st.tuples(st.just("dsync"), t),
        st.tuples(st.just("blk"), t, h),
        st.tuples(st.just("spawn"), t, t),
        st.tuples(st.just("join"), t, t),
        st.tuples(st.just("lock"), t, st.sampled_from(MUTEXES)),
        st.tuples(st.just("unlock"), t, st.sampled_from(MUTEXES)),
    )


def programs() -> st.SearchStrategy[tuple[bool, bool, list[Op]]]:
    """(per-thread default streams, stream 0x200 non-blocking, ops)."""
    return st.tuples(st.booleans(), st.booleans(), st.lists(op_strategy(), max_size=12))


def run_model(per_thread: bool, nb: bool, ops: list[Op]) -> list[Stamp]:
    """Every node the reference also has, in the same order: for each op its issue
    (host) stamp, then its item's stamp if it has one, then the host's wait."""
    o = Order(per_thread)
    o.create_stream(0x100, False)
    o.create_stream(0x200, nb)
    out: list[Stamp] = []

    def item(s: Stamp) -> None:
        # enqueue ticks the host (issue) first: its stamp is the item's own
        # clock's host entry, recovered as the host's latest stamp below.
        out.append(s)

    for op in ops:
        kind, t = op[0], op[1]
        if kind == "host":
            out.append(o.host(t))
        elif kind == "enq":
            item(o.enqueue(t, op[2]))
        elif kind == "rec":
            item(o.record(t, op[2], op[3]))
        elif kind == "wait":
            item(o.enqueue(t, op[2], after_event=op[3]))
        elif kind == "ssync":
            out.append(o.sync_stream(t, op[2]))
        elif kind == "esync":
            out.append(o.sync_event(t, op[2]))
        elif kind == "dsync":
            out.append(o.sync_device(t))
        elif kind == "blk":
            a, b = o.blocking(t, op[2])
            out += [a, b]
        elif kind == "spawn":
            out.append(o.create_thread(t, op[2]))
        elif kind == "join":
            out.append(o.join_thread(t, op[2]))
        elif kind == "lock":
            out.append(o.lock(t, op[2]))
        elif kind == "unlock":
            out.append(o.unlock(t, op[2]))
    return out


def reference(per_thread: bool, nb: bool, ops: list[Op]) -> tuple[int, set[tuple[int, int]]]:
    """Nodes (numbered in the order run_model lists observable stamps) and the
    transitive happens-before relation, from the rules of section 6.2."""
    kinds = {0x100: "blocking", 0x200: "non-blocking" if nb else "blocking"}

    def stream(h: int, t: int) -> tuple[str, str]:
        if h == 0x2 or (h == 0 and per_thread):
            return (f"pt{t}", "per-thread")
        if h in (0, 0x1):
            return ("legacy", "legacy")
        return (f"s{h}", kinds[h])

    edges: set[tuple[int, int]] = set()
    last_host: dict[int, int] = {}
    items: list[tuple[int, str, str]] = []  # (node, stream, kind) in issue order
    events: dict[int, int] = {}
    created: dict[int, list[int]] = {}  # creations of a thread not followed by its operations
    ever_created: set[int] = set()
    unlocks: dict[int, list[int]] = {}
    observed: list[int] = []
    count = 0

    def node() -> int:
        nonlocal count
        count += 1
        return count - 1

    def host(t: int) -> int:
        n = node()
        if t in last_host:
            edges.add((last_host[t], n))  # rule 1
        elif t not in ever_created:
            edges.update((m, n) for m in range(n))  # rule 10: a thread not seen created
        for m in created.pop(t, []):
            edges.add((m, n))  # rule 10: creation -> the thread's next operation
        last_host[t] = n
        return n

    def enqueue(t: int, h: int, after: int | None = None) -> int:
        issue = host(t)
        name, kind = stream(h, t)
        n = node()
        edges.add((issue, n))  # rule 2
        for m, sname, skind in items:
            if sname == name:
                edges.add((m, n))  # rule 3
            if kind == "legacy" and skind in ("blocking", "per-thread"):
                edges.add((m, n))  # rule 4, earlier blocking items -> legacy item
            if kind in ("blocking", "per-thread") and skind == "legacy":
                edges.add((m, n))  # rule 4, earlier legacy items -> blocking item
        if after is not None and after in events:
            edges.add((events[after], n))  # rule 5
        items.append((n, name, kind))
        return n

    def wait_for(t: int, preds: list[int]) -> int:
        n = host(t)
        for p in preds:
            edges.add((p, n))
        return n

    for op in ops:
        kind, t = op[0], op[1]
        if kind == "host":
            observed.append(host(t))
        elif kind == "enq":
            observed.append(enqueue(t, op[2]))
        elif kind == "rec":
            n = enqueue(t, op[3])
            events[op[2]] = n
            observed.append(n)
        elif kind == "wait":
            observed.append(enqueue(t, op[2], op[3]))
        elif kind == "ssync":
            marker = enqueue(t, op[2])  # rule 6: a marker item the host waits for
            observed.append(wait_for(t, [marker]))
        elif kind == "esync":
            observed.append(wait_for(t, [events[op[2]]] if op[2] in events else []))
        elif kind == "dsync":
            observed.append(wait_for(t, [m for m, _, _ in items]))  # rule 7
        elif kind == "blk":
            n = enqueue(t, op[2])
            observed += [n, wait_for(t, [n])]  # rule 8
        elif kind == "spawn":
            n = host(t)
            created.setdefault(op[2], []).append(n)
            ever_created.add(op[2])
            observed.append(n)
        elif kind == "join":
            # rule 10: the thread's last operation (and a creation it has not
            # yet followed) -> the join
            last = [last_host[op[2]]] if op[2] in last_host and op[2] != t else []
            observed.append(wait_for(t, last + created.get(op[2], [])))
        elif kind == "lock":
            observed.append(wait_for(t, unlocks.get(op[2], [])))  # rule 10: unlock -> lock
        elif kind == "unlock":
            n = host(t)
            unlocks.setdefault(op[2], []).append(n)
            observed.append(n)
    reach = {(a, b) for a, b in edges}
    changed = True
    while changed:
        changed = False
        for (a, b), (c, d) in itertools.product(list(reach), list(reach)):
            if b == c and (a, d) not in reach:
                reach.add((a, d))
                changed = True
    index = {n: i for i, n in enumerate(observed)}
    return len(observed), {(index[a], index[b]) for a, b in reach if a in index and b in index}


def compare(per_thread: bool, nb: bool, ops: list[Op]) -> None:
    stamps = run_model(per_thread, nb, ops)
    n, rel = reference(per_thread, nb, ops)
    assert len(stamps) == n
    for i, j in itertools.product(range(n), range(n)):
        if i != j:
            assert hb(stamps[i], stamps[j]) == ((i, j) in rel), (ops, i, j)


@settings(max_examples=300, deadline=None)
@given(programs())
def test_vector_clocks_match_brute_force_happens_before(program):
    compare(*program)


def test_every_pair_of_two_ops_matches_exhaustively():
    ops = [(k, *rest) for k, *rest in itertools.chain(
        [("host", t) for t in THREADS],
        [("enq", t, h) for t in THREADS for h in HANDLES],
        [("rec", t, e, h) for t in THREADS for e in EVENTS[:1] for h in HANDLES],
        [("wait", t, h, e) for t in THREADS for h in HANDLES for e in EVENTS[:1]],
        [("ssync", t, h) for t in THREADS for h in HANDLES],
        [("esync", t, EVENTS[0]) for t in THREADS],
        [("dsync", t) for t in THREADS],
        [("blk", t, h) for t in THREADS for h in HANDLES],
        [("spawn", t, c) for t in THREADS for c in THREADS],
        [("join", t, c) for t in THREADS for c in THREADS],
        [("lock", t, MUTEXES[0]) for t in THREADS],
        [("unlock", t, MUTEXES[0]) for t in THREADS],
    )]  # fmt: skip
    for per_thread, nb in itertools.product((False, True), repeat=2):
        for a, b in itertools.product(ops, repeat=2):
            compare(per_thread, nb, [a, b])


def test_async_copy_then_host_is_unordered_until_a_sync():
    o = Order()
    copy = o.enqueue(0, 0x100)
    read = o.host(0)
    assert not hb(copy, read)
    assert hb(copy, o.sync_stream(0, 0x100))


def test_non_blocking_stream_ignores_the_legacy_stream():
    o = Order()
    o.create_stream(0x200, True)
    o.create_stream(0x100, False)
    legacy = o.enqueue(0, 0)
    assert not hb(legacy, o.enqueue(0, 0x200))
    assert hb(legacy, o.enqueue(0, 0x100))
