"""Structural properties of a `Graph`: degree statistics, DAG test, sharing.

Used by `hirace graph info` and by the mini-suite tests, which need to know
on which graphs a planted race can happen (a vertex with two or more
neighbours; two different vertices sharing a neighbour).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hirace_py.indigo.ecl import Graph


@dataclass(frozen=True)
class DegreeStats:
    """Minimum, mean and maximum of a degree sequence (0, 0.0, 0 when empty)."""

    min: int
    mean: float
    max: int

    @classmethod
    def of(cls, degrees: np.ndarray) -> DegreeStats:
        if degrees.size == 0:
            return cls(0, 0.0, 0)
        return cls(int(degrees.min()), float(degrees.mean()), int(degrees.max()))


@dataclass(frozen=True)
class GraphInfo:
    """Everything `hirace graph info` prints about one graph."""

    nodes: int
    edges: int
    out_degree: DegreeStats
    in_degree: DegreeStats
    self_loops: int
    duplicate_edges: int
    sorted_lists: bool
    direction: str  # "none", "low->high", "high->low" or "mixed"
    is_dag: bool
    shared_neighbour: bool
    multi_neighbour: bool


def self_loops(g: Graph) -> int:
    """Number of edges v -> v."""
    return int(np.count_nonzero(g.edge_sources() == g.nlist))


def duplicate_edges(g: Graph) -> int:
    """Number of edges that repeat an earlier (source, destination) pair."""
    if g.edges == 0:
        return 0
    keys = g.edge_sources() * max(g.nodes, 1) + g.nlist.astype(np.int64)
    return int(g.edges - np.unique(keys).size)


def sorted_lists(g: Graph) -> bool:
    """True when every neighbour list is non-decreasing."""
    if g.edges < 2:
        return True
    steps = np.diff(g.nlist.astype(np.int64))
    # positions where a new list starts do not have to be ordered w.r.t. the previous list
    starts = g.nindex[1:-1].astype(np.int64)
    boundary = np.zeros(g.edges - 1, dtype=bool)
    inner = starts[(starts > 0) & (starts < g.edges)] - 1
    boundary[inner] = True
    return bool(np.all((steps >= 0) | boundary))


def direction(g: Graph) -> str:
    """'low->high' if every edge goes to a higher id, 'high->low' if every edge goes
    to a lower id, 'none' without edges, otherwise 'mixed'."""
    if g.edges == 0:
        return "none"
    src = g.edge_sources()
    dst = g.nlist.astype(np.int64)
    if np.all(src < dst):
        return "low->high"
    if np.all(src > dst):
        return "high->low"
    return "mixed"


def is_dag(g: Graph) -> bool:
    """True when the graph has no directed cycle (self-loops are cycles)."""
    indeg = g.in_degrees().copy()
    stack = list(np.flatnonzero(indeg == 0))
    seen = 0
    while stack:
        v = int(stack.pop())
        seen += 1
        for u in g.neighbours(v):
            indeg[u] -= 1
            if indeg[u] == 0:
                stack.append(int(u))
    return seen == g.nodes


def has_shared_neighbour(g: Graph) -> bool:
    """True when two different vertices have a common out-neighbour."""
    if g.edges == 0:
        return False
    src = g.edge_sources()
    dst = g.nlist.astype(np.int64)
    pairs = np.unique(src * max(g.nodes, 1) + dst)
    distinct_in = np.bincount(pairs % max(g.nodes, 1), minlength=g.nodes)
    return bool(np.any(distinct_in >= 2))


def has_lookahead_shared_neighbour(g: Graph) -> bool:
    """True when two edges into one vertex pass the buggy duplicate-edge filter.

    The edge pattern's boundsBug variant skips edge e when
    `e + 1 <= nindex[src + 1] && nlist[e + 1] == dst`: for a vertex's last
    edge that reads the next vertex's first neighbour (and past the end of
    nlist a zero, as a zero-padded read gives). On a star every edge into the
    centre but one is skipped that way, so the planted race cannot happen.
    """
    if g.edges < 2:
        return False
    src = g.edge_sources()
    e = np.arange(g.edges)
    following = np.append(g.nlist, 0)[e + 1]
    skipped = (e + 1 <= g.nindex[src + 1]) & (following == g.nlist)
    kept = g.nlist[~skipped].astype(np.int64)
    return bool(np.any(np.bincount(kept, minlength=max(g.nodes, 1)) >= 2))


def has_multi_neighbour_vertex(g: Graph) -> bool:
    """True when some vertex has two or more distinct out-neighbours."""
    if g.edges == 0:
        return False
    n = max(g.nodes, 1)
    pairs = np.unique(g.edge_sources() * n + g.nlist.astype(np.int64))
    return bool(np.any(np.bincount(pairs // n, minlength=g.nodes) >= 2))


def minisuite_qualifies(g: Graph) -> bool:
    """The mini-suite's condition for every planted race to happen: a vertex
    with two or more neighbours, and two different vertices sharing a neighbour."""
    return has_multi_neighbour_vertex(g) and has_shared_neighbour(g)


def describe(g: Graph) -> GraphInfo:
    """Compute the `GraphInfo` of `g`."""
    return GraphInfo(
        nodes=g.nodes,
        edges=g.edges,
        out_degree=DegreeStats.of(g.out_degrees()),
        in_degree=DegreeStats.of(g.in_degrees()),
        self_loops=self_loops(g),
        duplicate_edges=duplicate_edges(g),
        sorted_lists=sorted_lists(g),
        direction=direction(g),
        is_dag=is_dag(g),
        shared_neighbour=has_shared_neighbour(g),
        multi_neighbour=has_multi_neighbour_vertex(g),
    )


def has_proper_edge(g: Graph) -> bool:
    """True when some edge joins two different vertices."""
    return bool(np.any(g.edge_sources() != g.nlist))


def has_path2(g: Graph) -> bool:
    """True when some vertex x has an edge w -> x and an edge x -> y with w != x != y."""
    src = g.edge_sources()
    dst = g.nlist.astype(np.int64)
    proper = src != dst
    has_in = np.zeros(g.nodes, dtype=bool)
    has_out = np.zeros(g.nodes, dtype=bool)
    has_in[dst[proper]] = True
    has_out[src[proper]] = True
    return bool(np.any(has_in & has_out))


# The graph properties the mini-suite's labels name in `needs` (see
# indigo/minisuite/README.md): a planted bug happens on a graph when every
# property of one of its site pairs holds.
MINISUITE_NEEDS: dict[str, Callable[[Graph], bool]] = {
    "any": lambda g: g.nodes >= 1,
    "two_nodes": lambda g: g.nodes >= 2,
    "edge": has_proper_edge,
    "two_edges": lambda g: g.edges >= 2,
    "outdeg2": has_multi_neighbour_vertex,
    "shared_nbr": has_shared_neighbour,
    "lookahead_shared_nbr": has_lookahead_shared_neighbour,
    "path2": has_path2,
}
