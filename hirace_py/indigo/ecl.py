"""ECL graph files and the in-memory CSR `Graph`.

File layout (all little-endian int32):

    nodes, edges, nindex[nodes + 1], nlist[edges]

`nindex` is the CSR offset array (`nindex[0] == 0`, non-decreasing,
`nindex[nodes] == edges`); the neighbours of vertex `v` are
`nlist[nindex[v]:nindex[v + 1]]`, each in `[0, nodes)`.

Guarantees:
- every `Graph` that exists is valid CSR (checked on construction);
- `parse_ecl(g.to_bytes()) == g` and `read_ecl` after `write_ecl` gives back the
  same graph and the same bytes;
- every malformed file is rejected with an `EclError` naming the file and what
  is wrong (truncated, negative counts, bad offsets, out-of-range neighbours,
  trailing bytes). Nothing is silently repaired.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hirace_py.errors import HiraceError

_I32 = np.dtype("<i4")
_INT32_MAX = 2**31 - 1


class EclError(HiraceError):
    """A malformed ECL graph (file or arrays); the message names the source."""


@dataclass(frozen=True, eq=False)
class Graph:
    """A directed graph in CSR form.

    `nindex` and `nlist` are read-only, contiguous `numpy.int32` arrays; a
    Graph is immutable and always valid (see `validate_csr`). Self-loops and
    duplicate edges are allowed by the format; generators document whether
    they produce them.
    """

    nodes: int
    edges: int
    nindex: np.ndarray = field(repr=False)
    nlist: np.ndarray = field(repr=False)
    source: str = field(default="<graph>", compare=False, repr=False)

    def __post_init__(self) -> None:
        nindex = _as_int32(self.nindex, "nindex", self.source)
        nlist = _as_int32(self.nlist, "nlist", self.source)
        validate_csr(int(self.nodes), int(self.edges), nindex, nlist, self.source)
        nindex.setflags(write=False)
        nlist.setflags(write=False)
        object.__setattr__(self, "nodes", int(self.nodes))
        object.__setattr__(self, "edges", int(self.edges))
        object.__setattr__(self, "nindex", nindex)
        object.__setattr__(self, "nlist", nlist)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Graph):
            return NotImplemented
        return (
            self.nodes == other.nodes
            and self.edges == other.edges
            and np.array_equal(self.nindex, other.nindex)
            and np.array_equal(self.nlist, other.nlist)
        )

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def from_edges(
        cls, nodes: int, src: np.ndarray | list[int], dst: np.ndarray | list[int]
    ) -> Graph:
        """Build CSR from parallel edge arrays; each neighbour list comes out sorted.

        Edges are kept as given (no de-duplication); `src[i] -> dst[i]` is one edge.
        """
        s = np.asarray(src, dtype=np.int64).reshape(-1)
        d = np.asarray(dst, dtype=np.int64).reshape(-1)
        if s.shape != d.shape:
            raise EclError(f"<graph>: {s.size} edge sources but {d.size} destinations")
        if nodes < 0 or nodes >= _INT32_MAX:
            raise EclError(f"<graph>: node count {nodes} out of range [0, {_INT32_MAX})")
        if s.size > _INT32_MAX:
            raise EclError(f"<graph>: {s.size} edges exceed the int32 edge count")
        for name, arr in (("source", s), ("destination", d)):
            bad = np.flatnonzero((arr < 0) | (arr >= nodes))
            if bad.size:
                raise EclError(
                    f"<graph>: edge {bad[0]} has {name} {arr[bad[0]]} out of range [0, {nodes})"
                )
        order = np.lexsort((d, s))
        counts = np.bincount(s, minlength=nodes)
        nindex = np.zeros(nodes + 1, dtype=np.int64)
        np.cumsum(counts, out=nindex[1:])
        return cls(nodes, int(s.size), nindex.astype(np.int32), d[order].astype(np.int32))

    def out_degrees(self) -> np.ndarray:
        """Number of list entries of each vertex (duplicates counted)."""
        return np.diff(self.nindex.astype(np.int64))

    def in_degrees(self) -> np.ndarray:
        """Number of list entries naming each vertex (duplicates counted)."""
        return np.bincount(self.nlist, minlength=self.nodes).astype(np.int64)

    def neighbours(self, v: int) -> np.ndarray:
        """The neighbour list of `v`, in file order."""
        return self.nlist[self.nindex[v] : self.nindex[v + 1]]

    def edge_sources(self) -> np.ndarray:
        """The source vertex of every edge, parallel to `nlist`."""
        return np.repeat(np.arange(self.nodes, dtype=np.int64), self.out_degrees())

    def to_bytes(self) -> bytes:
        """The exact ECL file contents of this graph."""
        header = np.array([self.nodes, self.edges], dtype=_I32)
        return b"".join(
            (
                header.tobytes(),
                self.nindex.astype(_I32).tobytes(),
                self.nlist.astype(_I32).tobytes(),
            )
        )


def _as_int32(arr: object, name: str, source: str) -> np.ndarray:
    a = np.asarray(arr)
    if a.ndim != 1:
        raise EclError(f"{source}: {name} must be one-dimensional, has shape {a.shape}")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise EclError(f"{source}: {name} must hold integers, has dtype {a.dtype}")
    if a.size and (a.min() < -(2**31) or a.max() > _INT32_MAX):
        raise EclError(f"{source}: {name} has values outside int32")
    return np.array(a, dtype=np.int32, copy=True, order="C")


def validate_csr(
    nodes: int, edges: int, nindex: np.ndarray, nlist: np.ndarray, source: str
) -> None:
    """Raise `EclError` (prefixed with `source`) unless the arrays are valid CSR."""
    if nodes < 0:
        raise EclError(f"{source}: negative node count {nodes}")
    if edges < 0:
        raise EclError(f"{source}: negative edge count {edges}")
    if nindex.shape != (nodes + 1,):
        raise EclError(
            f"{source}: nindex has {nindex.size} entries, expected nodes + 1 = {nodes + 1}"
        )
    if nlist.shape != (edges,):
        raise EclError(f"{source}: nlist has {nlist.size} entries, expected edges = {edges}")
    if nindex[0] != 0:
        raise EclError(f"{source}: nindex[0] is {nindex[0]}, must be 0")
    steps = np.diff(nindex.astype(np.int64))
    down = np.flatnonzero(steps < 0)
    if down.size:
        i = int(down[0])
        raise EclError(
            f"{source}: nindex is not monotone: nindex[{i}] = {nindex[i]} > "
            f"nindex[{i + 1}] = {nindex[i + 1]}"
        )
    if nindex[nodes] != edges:
        raise EclError(
            f"{source}: nindex[{nodes}] is {nindex[nodes]}, must equal the edge count {edges}"
        )
    bad = np.flatnonzero((nlist < 0) | (nlist >= nodes))
    if bad.size:
        i = int(bad[0])
        raise EclError(f"{source}: nlist[{i}] = {nlist[i]} is out of range [0, {nodes})")


def parse_ecl(data: bytes, source: str = "<bytes>") -> Graph:
    """Decode the bytes of an ECL file; `source` names the file in errors."""
    size = len(data)
    if size < 8:
        raise EclError(f"{source}: truncated file: {size} bytes, the header alone needs 8")
    nodes, edges = (int(x) for x in np.frombuffer(data, dtype=_I32, count=2))
    if nodes < 0:
        raise EclError(f"{source}: negative node count {nodes}")
    if edges < 0:
        raise EclError(f"{source}: negative edge count {edges}")
    need = 4 * (2 + nodes + 1 + edges)
    if size < need:
        raise EclError(
            f"{source}: truncated file: {nodes} nodes and {edges} edges need {need} bytes, "
            f"the file has {size}"
        )
    if size > need:
        raise EclError(
            f"{source}: {size - need} trailing bytes after the edge list "
            f"({nodes} nodes and {edges} edges take {need} bytes)"
        )
    body = np.frombuffer(data, dtype=_I32, offset=8)
    nindex = body[: nodes + 1].astype(np.int32)
    nlist = body[nodes + 1 :].astype(np.int32)
    return Graph(nodes, edges, nindex, nlist, source=source)


def read_ecl(path: str | Path) -> Graph:
    """Read and validate an ECL file; errors name `path`."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise EclError(f"{p}: cannot read graph: {exc.strerror or exc}") from exc
    return parse_ecl(data, str(p))


def write_ecl(graph: Graph, path: str | Path) -> None:
    """Write `graph` as an ECL file (exactly `graph.to_bytes()`)."""
    p = Path(path)
    try:
        p.write_bytes(graph.to_bytes())
    except OSError as exc:
        raise EclError(f"{p}: cannot write graph: {exc.strerror or exc}") from exc
