"""Seeded graph generators for Indigo-style suite inputs.

Every generator returns a valid `Graph` whose neighbour lists are sorted and
which has no self-loops and no duplicate edges. Random families draw from
`numpy.random.default_rng(seed)` only, so the same (family, nodes, degree, seed)
gives the same graph, byte for byte, with a given NumPy release.

`degree` is the average out-degree, edges / nodes, for the random families.

Families:
- `dag`: `round(degree * nodes)` distinct edges drawn uniformly from the pairs
  `u < v`; every edge goes from a lower to a higher id (a DAG).
- `counter_dag`: the `dag` of the same arguments with every edge reversed;
  every edge goes from a higher to a lower id (also a DAG).
- `power_law`: preferential attachment. Vertices arrive in id order; vertex v
  attaches to `floor(degree)` (plus one with probability `frac(degree)`,
  capped at v) distinct earlier vertices, each picked with probability
  proportional to its current total degree + 1; each edge's direction is a
  fair coin flip, so both directions occur. About `degree * nodes` edges; the
  pair {u, v} is joined at most once (no antiparallel pairs).
- `star`: centre 0 joined to every other vertex in both directions
  (0 -> i and i -> 0): 2 * (nodes - 1) edges. Deterministic; seed ignored.
- `grid`: row-major grid with `ceil(sqrt(nodes))` columns (the last row may
  be partial); edges go to the right and down neighbour only (i -> i + 1
  within a row, i -> i + cols), so it is a DAG. Deterministic; seed ignored.
- `binary_tree`: heap layout, edges parent -> child (i -> 2i + 1, i -> 2i + 2):
  nodes - 1 edges, at most two children each. Deterministic; seed ignored.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hirace_py.errors import HiraceError
from hirace_py.indigo.ecl import Graph

MAX_NODES = 50_000_000
DEFAULT_DEGREE = 2.0


class GeneratorError(HiraceError):
    """Bad generator arguments (unknown family, impossible degree, ...)."""


@dataclass(frozen=True)
class Family:
    """A graph family: its builder and whether it takes a degree and a seed."""

    name: str
    build: Callable[..., Graph]
    uses_degree: bool
    uses_seed: bool
    summary: str


def _check_degree(family: str, nodes: int, degree: float, max_degree: float) -> None:
    if not math.isfinite(degree) or degree < 0:
        raise GeneratorError(f"{family}: degree must be a finite number >= 0, got {degree}")
    if degree > max_degree:
        raise GeneratorError(
            f"{family}: degree {degree} is too high for {nodes} nodes (at most {max_degree:g})"
        )


def _pairs_below(n: int) -> np.ndarray:
    """off[i] = number of pairs (a, b), a < b, with a < i: the row offsets of pair ids."""
    i = np.arange(n, dtype=np.int64)
    return i * n - i * (i + 1) // 2


def _dag_pairs(nodes: int, degree: float, seed: int, family: str) -> tuple[np.ndarray, np.ndarray]:
    _check_degree(family, nodes, degree, (nodes - 1) / 2)
    total = nodes * (nodes - 1) // 2
    m = min(round(degree * nodes), total)
    rng = np.random.default_rng(seed)
    ids = np.sort(rng.choice(total, size=m, replace=False)) if m else np.zeros(0, np.int64)
    off = _pairs_below(nodes)
    lo = np.searchsorted(off, ids, side="right") - 1
    hi = ids - off[lo] + lo + 1
    return lo, hi


def dag(nodes: int, degree: float, seed: int) -> Graph:
    """Random DAG: edges only from lower to higher ids (see module doc)."""
    lo, hi = _dag_pairs(nodes, degree, seed, "dag")
    return Graph.from_edges(nodes, lo, hi)


def counter_dag(nodes: int, degree: float, seed: int) -> Graph:
    """`dag(nodes, degree, seed)` with every edge reversed: edges go high -> low ids."""
    lo, hi = _dag_pairs(nodes, degree, seed, "counter_dag")
    return Graph.from_edges(nodes, hi, lo)


def power_law(nodes: int, degree: float, seed: int) -> Graph:
    """Directed preferential-attachment graph (see module doc)."""
    _check_degree("power_law", nodes, degree, max(nodes - 1, 0))
    rng = np.random.default_rng(seed)
    whole, frac = int(degree), degree - int(degree)
    pool: list[int] = [0]  # each vertex once, plus once per incident edge
    src: list[int] = []
    dst: list[int] = []
    for v in range(1, nodes):
        k = whole + (1 if frac and rng.random() < frac else 0)
        k = min(k, v)
        targets: set[int] = set()
        while len(targets) < k:
            targets.add(pool[int(rng.integers(len(pool)))])
        for t in sorted(targets):
            if rng.random() < 0.5:
                src.append(v)
                dst.append(t)
            else:
                src.append(t)
                dst.append(v)
            pool.append(t)
            pool.append(v)
        pool.append(v)
    return Graph.from_edges(nodes, src, dst)


def star(nodes: int) -> Graph:
    """Centre 0 with edges 0 -> i and i -> 0 for every other vertex i."""
    leaves = np.arange(1, nodes, dtype=np.int64)
    centre = np.zeros_like(leaves)
    return Graph.from_edges(
        nodes, np.concatenate([centre, leaves]), np.concatenate([leaves, centre])
    )


def grid_columns(nodes: int) -> int:
    """Number of columns of `grid(nodes)`: ceil(sqrt(nodes)), at least 1."""
    return max(1, math.isqrt(nodes - 1) + 1) if nodes > 0 else 1


def grid(nodes: int) -> Graph:
    """Row-major 2-D grid, edges to the right and down neighbours only."""
    cols = grid_columns(nodes)
    i = np.arange(nodes, dtype=np.int64)
    right = i[(i % cols + 1 < cols) & (i + 1 < nodes)]
    down = i[i + cols < nodes]
    return Graph.from_edges(
        nodes, np.concatenate([right, down]), np.concatenate([right + 1, down + cols])
    )


def binary_tree(nodes: int) -> Graph:
    """Complete binary tree in heap layout, edges parent -> child."""
    child = np.arange(1, nodes, dtype=np.int64)
    return Graph.from_edges(nodes, (child - 1) // 2, child)


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("dag", dag, True, True, "random DAG, edges low -> high id"),
        Family("counter_dag", counter_dag, True, True, "random DAG, edges high -> low id"),
        Family("power_law", power_law, True, True, "preferential attachment, random directions"),
        Family("star", star, False, False, "centre 0 <-> every vertex"),
        Family("grid", grid, False, False, "2-D grid, edges right and down"),
        Family("binary_tree", binary_tree, False, False, "heap-layout tree, parent -> child"),
    )
}


def generate(family: str, nodes: int, seed: int = 0, degree: float | None = None) -> Graph:
    """Build a graph of `family`; raises `GeneratorError` on bad arguments.

    `degree` defaults to 2.0 for families that use it and must be None for the
    others. Deterministic families ignore `seed`.
    """
    fam = FAMILIES.get(family)
    if fam is None:
        raise GeneratorError(f"unknown graph family '{family}' (known: {', '.join(FAMILIES)})")
    if not 1 <= nodes <= MAX_NODES:
        raise GeneratorError(f"{family}: nodes must be in [1, {MAX_NODES}], got {nodes}")
    if seed < 0:
        raise GeneratorError(f"{family}: seed must be >= 0, got {seed}")
    if not fam.uses_degree:
        if degree is not None:
            raise GeneratorError(f"{family}: this family takes no degree")
        return fam.build(nodes)
    return fam.build(nodes, DEFAULT_DEGREE if degree is None else float(degree), seed)
