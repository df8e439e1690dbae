#!/usr/bin/env python3
"""Generate the hirace Indigo-style mini-suite: the `.cu` codes and `labels.toml`.

    python indigo/minisuite/generate.py            # rewrite the suite in place
    python indigo/minisuite/generate.py --check    # exit 1 if a file differs

This script is the single source of the suite: every code is a pattern
rendered with a set of options and planted bugs, and every label (race sites,
line numbers, manifestation conditions) is computed from the same rendering,
so labels.toml cannot drift from the sources. See README.md for the meaning of
patterns, options and bug tags.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent

BUG_TAGS = ("atomicBug", "raceBug", "syncBug", "guardBug", "boundsBug")
RACE_TAGS = BUG_TAGS[:4]
OPTION_TAGS = ("warp", "block", "shfl", "persistent", "reverse", "cond")
FLOAT_TYPES = ("float", "double")

# Graph properties a planted bug needs in order to happen (see README.md).
NEEDS = (
    "any", "two_nodes", "edge", "two_edges", "outdeg2", "shared_nbr", "lookahead_shared_nbr",
    "path2",
)  # fmt: skip


@dataclass(frozen=True)
class Pair:
    """Two source sites (marks) whose accesses race, and when they do."""

    marks: tuple[str, str]
    kind: str  # read-write, write-write, atomic-plain
    needs: tuple[str, ...]


@dataclass(frozen=True)
class Race:
    """One planted race: its tag, the variable raced on, and the racing site pairs."""

    tag: str
    variable: str
    space: str  # global or shared
    description: str
    pairs: tuple[Pair, ...]


@dataclass(frozen=True)
class Bounds:
    """One planted out-of-bounds access (not a race)."""

    array: str
    mark: str
    description: str
    needs: tuple[str, ...]


class Source:
    """Line emitter with indentation and named marks (1-based line numbers)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.marks: dict[str, int] = {}
        self.depth = 0

    def __call__(self, text: str = "", *marks: str) -> None:
        self.lines.append(("  " * self.depth + text) if text else "")
        for m in marks:
            if m in self.marks:
                raise ValueError(f"mark {m!r} used twice")
            self.marks[m] = len(self.lines)

    @contextmanager
    def block(self, head: str, *marks: str, tail: str = "}") -> Iterator[None]:
        self(head, *marks)
        self.depth += 1
        yield
        self.depth -= 1
        self(tail)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


@dataclass
class Variant:
    """One code of the suite: pattern, options, bugs, element type."""

    pattern: str
    options: tuple[str, ...]
    bugs: tuple[str, ...]
    dtype: str
    mapping: str = ""
    races: list[Race] = field(default_factory=list)
    bounds: list[Bounds] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "_".join((self.pattern, *self.options, *self.bugs))

    def has(self, tag: str) -> bool:
        return tag in self.options or tag in self.bugs


# --------------------------------------------------------------------------
# Shared snippets


def dedup(src: Source, var: Variant, e: str, end: str, u: str, mark: str = "dup") -> None:
    """`continue` on all but the last copy of a duplicated neighbour; boundsBug
    makes the look-ahead test `<=`, reading nlist[end] (nlist[edges] for the
    vertex owning the last edge)."""
    cmp = "<=" if var.has("boundsBug") else "<"
    src(
        f"if ({e} + 1 {cmp} {end} && nlist[{e} + 1] == {u}) continue;"
        "  // skip duplicate neighbours",
        mark,
    )


def bounds_label(var: Variant, mark: str = "dup") -> None:
    if var.has("boundsBug"):
        var.bounds.append(
            Bounds(
                "nlist",
                mark,
                "the duplicate-neighbour look-ahead tests e + 1 <= end instead of e + 1 < end, "
                "so the thread at the last edge of a vertex reads nlist[end]; for the vertex "
                "owning the last edge that is nlist[edges], one element past the end of nlist "
                "(the value is only compared, never used as an index)",
                ("edge",),
            )
        )


def serial_dedup(src: Source, e: str, end: str, u: str) -> None:
    src(f"if ({e} + 1 < {end} && nlist[{e} + 1] == {u}) continue;")


def edge_loop_head(var: Variant, beg: str, end: str) -> str:
    if var.has("reverse"):
        return f"for (int e = {end} - 1; e >= {beg}; e--) {{"
    return f"for (int e = {beg}; e < {end}; e++) {{"


def warp_prologue(src: Source, with_w: bool = True) -> None:
    src("const int lane = threadIdx.x % 32;")
    if with_w:
        src("const int w = threadIdx.x / 32;  // warp index in the block")
    src("const int v = (blockIdx.x * blockDim.x + threadIdx.x) / 32;  // one warp per vertex")


def verify(src: Source, var: Variant) -> None:
    src("static int same_value(data_t a, data_t b)")
    with src.block("{"):
        if var.dtype in FLOAT_TYPES:
            src("// atomics add in any order: allow rounding differences")
            src("return fabs((double)a - (double)b) <= 1e-4 * fmax(1.0, fabs((double)b));")
        else:
            src("return a == b;")
    src()
    src(
        "int verify_result(int* nindex, int* nlist, data_t* data1, data_t* data2, data_t* ref1, "
        "data_t* ref2, int numv)"
    )
    with src.block("{"):
        src("(void)nlist;")
        src("const int size = std::max(numv, std::max(nindex[numv], 1));")
        with src.block("for (int i = 0; i < size; i++) {"):
            src("if (!same_value(data1[i], ref1[i]) || !same_value(data2[i], ref2[i])) return 0;")
        src("return 1;")


KERNEL_HEAD = (
    "__global__ void test_kernel(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)"
)
SERIAL_HEAD = "void serial_code(int* nindex, int* nlist, data_t* data1, data_t* data2, int numv)"


def pair(a: str, b: str, kind: str, *needs: str) -> Pair:
    return Pair((a, b), kind, needs)


RW_WW = ("read-write", "write-write")


def rmw_race(var: Variant, variable: str, space: str, mark: str, what: str, needs: str) -> Race:
    return Race(
        "atomicBug", variable, space, what, tuple(pair(mark, mark, k, needs) for k in RW_WW)
    )


# --------------------------------------------------------------------------
# Pattern: push -- each vertex adds data1[v] to data2[u] of its out-neighbours


def push(src: Source, var: Variant) -> None:
    warp = var.has("warp")
    var.mapping = "warp-per-vertex" if warp else "thread-per-vertex"
    src(KERNEL_HEAD)
    with src.block("{"):
        if warp:
            src("__shared__ data_t s_val[32];  // the value each warp pushes, loaded by lane 0")
            warp_prologue(src)
            head = "if (v < numv) {  // the same v for every lane of the warp"
        elif var.has("persistent"):
            head = (
                "for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < numv; "
                "v += gridDim.x * blockDim.x) {"
            )
        else:
            src("const int v = blockIdx.x * blockDim.x + threadIdx.x;  // one thread per vertex")
            head = "if (v < numv) {"
        with src.block(head):
            if warp:
                if var.has("guardBug"):
                    src("s_val[w] = data1[v];", "bcast")
                else:
                    src("if (lane == 0) s_val[w] = data1[v];", "bcast")
                if not var.has("syncBug"):
                    src("__syncwarp();")
                src("const data_t val = s_val[w];", "use")
            else:
                src("const data_t val = data1[v];", "own")
            src("const int beg = nindex[v];")
            src("const int end = nindex[v + 1];")
            loop = (
                "for (int e = beg + lane; e < end; e += 32) {"
                if warp
                else edge_loop_head(var, "beg", "end")
            )
            with src.block(loop):
                src("const int u = nlist[e];")
                dedup(src, var, "e", "end", "u")
                if var.has("cond"):
                    src("if (u == v) continue;  // ignore self-loops")
                if var.has("atomicBug"):
                    src("data2[u] = data2[u] + val;", "push")
                elif var.has("raceBug"):
                    src("atomicAdd(&data1[u], val);", "push")
                else:
                    src("atomicAdd(&data2[u], val);", "push")
    bounds_label(var)
    own = "bcast" if warp else "own"
    if var.has("atomicBug"):
        var.races.append(
            rmw_race(
                var,
                "data2",
                "global",
                "push",
                "data2[u] = data2[u] + val is a plain load and store: the threads of two vertices "
                "with a common out-neighbour u update data2[u] with nothing ordering them",
                "shared_nbr",
            )
        )
    if var.has("raceBug"):
        var.races.append(
            Race(
                "raceBug",
                "data1",
                "global",
                "the value is pushed in place into data1[u] (atomicAdd) while the thread of u "
                "reads data1[u] with a plain load; no barrier or atomic orders the two",
                (pair("push", own, "atomic-plain", "edge"),),
            )
        )
    if var.has("syncBug"):
        var.races.append(
            Race(
                "syncBug",
                "s_val",
                "shared",
                "no __syncwarp between lane 0 storing s_val[w] and the other lanes loading it",
                (pair("bcast", "use", "read-write", "any"),),
            )
        )
    if var.has("guardBug"):
        var.races.append(
            Race(
                "guardBug",
                "s_val",
                "shared",
                "the lane == 0 guard is missing: all 32 lanes of the warp store s_val[w]",
                (pair("bcast", "bcast", "write-write", "any"),),
            )
        )

    src()
    src(SERIAL_HEAD)
    with src.block("{"):
        with src.block("for (int v = 0; v < numv; v++) {"):
            src("const data_t val = data1[v];")
            with src.block("for (int e = nindex[v]; e < nindex[v + 1]; e++) {"):
                src("const int u = nlist[e];")
                serial_dedup(src, "e", "nindex[v + 1]", "u")
                if var.has("cond"):
                    src("if (u == v) continue;")
                src("data2[u] += val;")


# --------------------------------------------------------------------------
# Pattern: pull -- data2[v] = sum of data1[u] over the out-neighbours u of v


def pull(src: Source, var: Variant) -> None:
    warp, shfl = var.has("warp"), var.has("shfl")
    var.mapping = "warp-per-vertex" if warp else "block-per-vertex"
    lead = "lane" if warp else "t"
    acc = "s_sum[w]" if warp else "s_sum"
    step = "32" if warp else "blockDim.x"
    sync = "__syncwarp();" if warp else "__syncthreads();"
    src(KERNEL_HEAD)
    with src.block("{"):
        if warp:
            if not shfl:
                src("__shared__ data_t s_sum[32];  // one accumulator per warp of the block")
            warp_prologue(src, with_w=not shfl)
            head = "if (v < numv) {  // the same v for every lane of the warp"
        else:
            src("__shared__ data_t s_sum;  // the block's accumulator")
            src("const int t = threadIdx.x;")
            if var.has("persistent"):
                head = "for (int v = blockIdx.x; v < numv; v += gridDim.x) {  // a block per vertex"
            else:
                src("const int v = blockIdx.x;  // one block per vertex")
                src("if (v >= numv) return;  // the whole block leaves together")
                head = ""

        def body() -> None:
            if not shfl:
                src(f"if ({lead} == 0) {acc} = 0;", "init")
                src(sync)
            src("const int beg = nindex[v];")
            src("const int end = nindex[v + 1];")
            src("data_t local = 0;")
            with src.block(f"for (int e = beg + {lead}; e < end; e += {step}) {{"):
                src("const int u = nlist[e];")
                dedup(src, var, "e", "end", "u")
                src("local += data1[u];", "read")
            if shfl:
                with src.block("for (int offset = 16; offset > 0; offset /= 2) {"):
                    src("local += __shfl_down_sync(0xffffffff, local, offset);")
                result = "local"
            else:
                if var.has("atomicBug"):
                    src(f"if ({lead} < end - beg) {acc} += local;", "acc")
                else:
                    src(f"if ({lead} < end - beg) atomicAdd_block(&{acc}, local);", "acc")
                if not var.has("syncBug"):
                    src(sync)
                result = acc
            target = "data1" if var.has("raceBug") else "data2"
            guard = "" if var.has("guardBug") else f"if ({lead} == 0) "
            src(f"{guard}{target}[v] = {result};", "result")

        if head:
            with src.block(head):
                body()
        else:
            body()
    bounds_label(var)
    who = "lanes of the warp" if warp else "threads of the block"
    if var.has("atomicBug"):
        var.races.append(
            rmw_race(
                var,
                "s_sum",
                "shared",
                "acc",
                f"the partial sums are added to {acc} with a plain load and store; two {who} that "
                "both have neighbours (a vertex with two or more) race",
                "outdeg2",
            )
        )
    if var.has("raceBug"):
        var.races.append(
            Race(
                "raceBug",
                "data1",
                "global",
                f"the sum is written in place into data1[v] by {'lane' if warp else 'thread'} 0 "
                f"while the {'warp' if warp else 'block'} of an in-neighbour of v reads data1[v]",
                (pair("result", "read", "read-write", "edge"),),
            )
        )
    if var.has("syncBug"):
        var.races.append(
            Race(
                "syncBug",
                "s_sum",
                "shared",
                f"no {sync[:-3]} between the atomicAdd_block of the other {who} and "
                f"{lead} 0 reading {acc}",
                (pair("acc", "result", "atomic-plain", "outdeg2"),),
            )
        )
    if var.has("guardBug"):
        var.races.append(
            Race(
                "guardBug",
                "data2",
                "global",
                f"the {lead} == 0 guard is missing: every one of the {who} stores data2[v]",
                (pair("result", "result", "write-write", "any"),),
            )
        )

    src()
    src(SERIAL_HEAD)
    with src.block("{"):
        with src.block("for (int v = 0; v < numv; v++) {"):
            src("data_t sum = 0;")
            with src.block("for (int e = nindex[v]; e < nindex[v + 1]; e++) {"):
                src("const int u = nlist[e];")
                serial_dedup(src, "e", "nindex[v + 1]", "u")
                src("sum += data1[u];")
            src("data2[v] = sum;")


# --------------------------------------------------------------------------
# Pattern: edge -- one thread per edge v -> u adds max(data1[v], data1[u]) to data2[u]


def edge(src: Source, var: Variant) -> None:
    var.mapping = "thread-per-edge"
    src("__device__ int find_source(const int* nindex, int numv, int e, int hint)")
    with src.block("{"):
        src("// The owner of edge e: the largest v with nindex[v] <= e. The search starts at")
        src("// hint when hint is a valid lower bound, at 0 otherwise.")
        src("int lo = (hint > 0 && hint < numv && nindex[hint] <= e) ? hint : 0;")
        src("int hi = numv - 1;")
        with src.block("while (lo < hi) {"):
            src("const int mid = lo + (hi - lo + 1) / 2;")
            src("if (nindex[mid] <= e) {")
            src("  lo = mid;")
            src("} else {")
            src("  hi = mid - 1;")
            src("}")
        src("return lo;")
    src()
    src(KERNEL_HEAD)
    with src.block("{"):
        src("__shared__ int s_hint;  // owner of the tile's first edge, found by thread 0")
        src("const int t = threadIdx.x;")
        src("const int nedges = nindex[numv];")
        persistent = var.has("persistent")
        if persistent:
            head = (
                "for (int first = blockIdx.x * blockDim.x; first < nedges; "
                "first += gridDim.x * blockDim.x) {"
            )
        else:
            src("const int first = blockIdx.x * blockDim.x;  // one thread per edge")
            src("if (first >= nedges) return;  // the whole block leaves together")
            head = ""

        def body() -> None:
            guard = "" if var.has("guardBug") else "if (t == 0) "
            src(f"{guard}s_hint = find_source(nindex, numv, first, 0);", "hint")
            if not var.has("syncBug"):
                src("__syncthreads();")
            src("const int e = first + t;")
            with src.block("if (e < nedges) {"):
                src("const int src = find_source(nindex, numv, e, s_hint);", "use")
                src("const int dst = nlist[e];")
                cmp = "<=" if var.has("boundsBug") else "<"
                with src.block(
                    f"if (!(e + 1 {cmp} nindex[src + 1] && nlist[e + 1] == dst)) "
                    "{  // skip duplicate edges",
                    "dup",
                ):
                    src("const data_t a = data1[src];", "reada")
                    src("const data_t b = data1[dst];", "readb")
                    if var.has("atomicBug"):
                        src("data2[dst] = data2[dst] + max(a, b);", "add")
                    elif var.has("raceBug"):
                        src("atomicAdd(&data1[dst], max(a, b));", "add")
                    else:
                        src("atomicAdd(&data2[dst], max(a, b));", "add")
            if persistent:
                src("__syncthreads();  // the next tile overwrites s_hint")

        if head:
            with src.block(head):
                body()
        else:
            body()
    if var.has("boundsBug"):
        var.bounds.append(
            Bounds(
                "nlist",
                "dup",
                "the duplicate-edge look-ahead tests e + 1 <= nindex[src + 1], so the thread of "
                "the last edge reads nlist[edges], one element past the end of nlist (only "
                "compared)",
                ("edge",),
            )
        )
    if var.has("atomicBug"):
        var.races.append(
            rmw_race(
                var,
                "data2",
                "global",
                "add",
                "data2[dst] += ... is a plain load and store: the threads of two edges into the "
                "same vertex race",
                # With the bounds bug the look-ahead can skip all but one edge into a vertex.
                "lookahead_shared_nbr" if var.has("boundsBug") else "shared_nbr",
            )
        )
    if var.has("raceBug"):
        var.races.append(
            Race(
                "raceBug",
                "data1",
                "global",
                "the contribution is added in place to data1[dst] while the thread of another "
                "edge into (or out of) that vertex reads it with a plain load",
                (
                    pair("add", "readb", "atomic-plain", "shared_nbr"),
                    pair("add", "reada", "atomic-plain", "path2"),
                ),
            )
        )
    if var.has("syncBug"):
        var.races.append(
            Race(
                "syncBug",
                "s_hint",
                "shared",
                "no __syncthreads between thread 0 storing s_hint and the other threads of the "
                "tile loading it",
                (pair("hint", "use", "read-write", "two_edges"),),
            )
        )
    if var.has("guardBug"):
        var.races.append(
            Race(
                "guardBug",
                "s_hint",
                "shared",
                "the t == 0 guard is missing: every thread of the block stores s_hint",
                (pair("hint", "hint", "write-write", "edge"),),
            )
        )

    src()
    src(SERIAL_HEAD)
    with src.block("{"):
        with src.block("for (int v = 0; v < numv; v++) {"):
            with src.block("for (int e = nindex[v]; e < nindex[v + 1]; e++) {"):
                src("const int u = nlist[e];")
                serial_dedup(src, "e", "nindex[v + 1]", "u")
                src("data2[u] += std::max(data1[v], data1[u]);")


# --------------------------------------------------------------------------
# Pattern: maxprop -- m(v) = max of data1 over v and its out-neighbours;
# data2[u] = max(data2[u], m(v)) for every out-neighbour u


def maxprop(src: Source, var: Variant) -> None:
    var.mapping = "block-per-vertex"
    src(KERNEL_HEAD)
    with src.block("{"):
        src("__shared__ data_t s_max;  // max of data1 over v and its neighbours")
        src("const int t = threadIdx.x;")
        persistent = var.has("persistent")
        if persistent:
            head = "for (int v = blockIdx.x; v < numv; v += gridDim.x) {  // a block per vertex"
        else:
            src("const int v = blockIdx.x;  // one block per vertex")
            src("if (v >= numv) return;  // the whole block leaves together")
            head = ""

        def body() -> None:
            src("const int beg = nindex[v];")
            src("const int end = nindex[v + 1];")
            guard = "" if var.has("guardBug") else "if (t == 0) "
            src(f"{guard}s_max = data1[v];", "init")
            src("__syncthreads();")
            with src.block("for (int e = beg + t; e < end; e += blockDim.x) {"):
                src("const int u = nlist[e];")
                dedup(src, var, "e", "end", "u")
                src("atomicMax_block(&s_max, data1[u]);", "gather")
            if not var.has("syncBug"):
                src("__syncthreads();")
            src("const data_t m = s_max;", "use")
            with src.block("for (int e = beg + t; e < end; e += blockDim.x) {"):
                src("const int u = nlist[e];")
                src("if (e + 1 < end && nlist[e + 1] == u) continue;  // skip duplicate neighbours")
                if var.has("atomicBug"):
                    src("data2[u] = max(data2[u], m);", "push")
                elif var.has("raceBug"):
                    src("atomicMax(&data1[u], m);", "push")
                else:
                    src("atomicMax(&data2[u], m);", "push")
            if persistent:
                src("__syncthreads();  // the next vertex overwrites s_max")

        if head:
            with src.block(head):
                body()
        else:
            body()
    bounds_label(var)
    if var.has("atomicBug"):
        var.races.append(
            rmw_race(
                var,
                "data2",
                "global",
                "push",
                "data2[u] = max(data2[u], m) is a plain load and store: the blocks of two vertices "
                "with a common out-neighbour u race on data2[u]",
                "shared_nbr",
            )
        )
    if var.has("raceBug"):
        var.races.append(
            Race(
                "raceBug",
                "data1",
                "global",
                "the maximum is propagated in place into data1[u] (atomicMax) while the block of u "
                "(thread 0) and the blocks of other in-neighbours of u read data1[u] plainly",
                (
                    pair("push", "init", "atomic-plain", "edge"),
                    pair("push", "gather", "atomic-plain", "shared_nbr"),
                ),
            )
        )
    if var.has("syncBug"):
        var.races.append(
            Race(
                "syncBug",
                "s_max",
                "shared",
                "no __syncthreads between the atomicMax_block updates of s_max and the threads "
                "reading it",
                (pair("gather", "use", "atomic-plain", "edge"),),
            )
        )
    if var.has("guardBug"):
        var.races.append(
            Race(
                "guardBug",
                "s_max",
                "shared",
                "the t == 0 guard is missing: every thread of the block stores s_max",
                (pair("init", "init", "write-write", "any"),),
            )
        )

    src()
    src(SERIAL_HEAD)
    with src.block("{"):
        with src.block("for (int v = 0; v < numv; v++) {"):
            src("data_t m = data1[v];")
            with src.block("for (int e = nindex[v]; e < nindex[v + 1]; e++) {"):
                src("m = std::max(m, data1[nlist[e]]);")
            with src.block("for (int e = nindex[v]; e < nindex[v + 1]; e++) {"):
                src("const int u = nlist[e];")
                serial_dedup(src, "e", "nindex[v + 1]", "u")
                src("data2[u] = std::max(data2[u], m);")


# --------------------------------------------------------------------------
# Pattern: degree -- data1[v] = number of distinct out-neighbours of v,
# data2[u] += 1 for every distinct edge into u


def degree(src: Source, var: Variant) -> None:
    var.mapping = "warp-per-vertex"
    src(KERNEL_HEAD)
    with src.block("{"):
        src("__shared__ int s_part[32][32];  // per warp and lane: neighbours counted")
        warp_prologue(src)
        with src.block("if (v < numv) {  // the same v for every lane of the warp"):
            src("const int beg = nindex[v];")
            src("const int end = nindex[v + 1];")
            src("int mine = 0;")
            with src.block("for (int e = beg + lane; e < end; e += 32) {"):
                src("const int u = nlist[e];")
                dedup(src, var, "e", "end", "u")
                if var.has("atomicBug"):
                    src("data2[u] = data2[u] + 1;", "count")
                else:
                    src("atomicAdd(&data2[u], (data_t)1);", "count")
                src("mine++;")
            src("s_part[w][lane] = mine;", "part")
            if not var.has("syncBug"):
                src("__syncwarp();")
            src("int total = 0;")
            src("for (int i = 0; i < 32; i++) total += s_part[w][i];", "sum")
            target = "data2" if var.has("raceBug") else "data1"
            guard = "" if var.has("guardBug") else "if (lane == 0) "
            src(f"{guard}{target}[v] = total;", "result")
    bounds_label(var)
    if var.has("atomicBug"):
        var.races.append(
            rmw_race(
                var,
                "data2",
                "global",
                "count",
                "data2[u] = data2[u] + 1 is a plain load and store: the warps of two vertices with "
                "a common out-neighbour u race",
                "shared_nbr",
            )
        )
    if var.has("raceBug"):
        var.races.append(
            Race(
                "raceBug",
                "data2",
                "global",
                "the out-degree is stored into data2[v] (the in-degree counters) with a plain "
                "store while the warps of v's in-neighbours atomically increment data2[v]",
                (pair("result", "count", "atomic-plain", "edge"),),
            )
        )
    if var.has("syncBug"):
        var.races.append(
            Race(
                "syncBug",
                "s_part",
                "shared",
                "no __syncwarp between each lane storing s_part[w][lane] and every lane summing "
                "the warp's 32 slots",
                (pair("part", "sum", "read-write", "any"),),
            )
        )
    if var.has("guardBug"):
        var.races.append(
            Race(
                "guardBug",
                "data1",
                "global",
                "the lane == 0 guard is missing: all 32 lanes of the warp store data1[v]",
                (pair("result", "result", "write-write", "any"),),
            )
        )

    src()
    src(SERIAL_HEAD)
    with src.block("{"):
        with src.block("for (int v = 0; v < numv; v++) {"):
            src("int total = 0;")
            with src.block("for (int e = nindex[v]; e < nindex[v + 1]; e++) {"):
                src("const int u = nlist[e];")
                serial_dedup(src, "e", "nindex[v + 1]", "u")
                src("data2[u] += 1;")
                src("total++;")
            src("data1[v] = total;")


# --------------------------------------------------------------------------
# Pattern: relax -- one BFS/SSSP relaxation step with unit weights:
# data2[u] = min(data2[u], data1[v] + 1) for every edge v -> u


def relax(src: Source, var: Variant) -> None:
    var.mapping = "block-per-vertex"
    src(KERNEL_HEAD)
    with src.block("{"):
        src("__shared__ data_t s_dist;  // data1[v] + 1, loaded by thread 0")
        src("const int t = threadIdx.x;")
        src("const int v = blockIdx.x;  // one block per vertex")
        src("if (v >= numv) return;  // the whole block leaves together")
        guard = "" if var.has("guardBug") else "if (t == 0) "
        src(f"{guard}s_dist = data1[v] + 1;", "init")
        if not var.has("syncBug"):
            src("__syncthreads();")
        src("const data_t d = s_dist;", "use")
        src("const int beg = nindex[v];")
        src("const int end = nindex[v + 1];")
        with src.block("for (int e = beg + t; e < end; e += blockDim.x) {"):
            src("const int u = nlist[e];")
            dedup(src, var, "e", "end", "u")
            if var.has("atomicBug"):
                src("data2[u] = min(data2[u], d);", "relax")
            elif var.has("raceBug"):
                src("atomicMin(&data1[u], d);", "relax")
            else:
                src("atomicMin(&data2[u], d);", "relax")
    bounds_label(var)
    if var.has("atomicBug"):
        var.races.append(
            rmw_race(
                var,
                "data2",
                "global",
                "relax",
                "data2[u] = min(data2[u], d) is a plain load and store: the blocks of two vertices "
                "with a common out-neighbour u race",
                "shared_nbr",
            )
        )
    if var.has("raceBug"):
        var.races.append(
            Race(
                "raceBug",
                "data1",
                "global",
                "the distance is relaxed in place into data1[u] (atomicMin) while thread 0 of the "
                "block of u reads data1[u] plainly",
                (pair("relax", "init", "atomic-plain", "edge"),),
            )
        )
    if var.has("syncBug"):
        var.races.append(
            Race(
                "syncBug",
                "s_dist",
                "shared",
                "no __syncthreads between thread 0 storing s_dist and the other threads loading it",
                (pair("init", "use", "read-write", "any"),),
            )
        )
    if var.has("guardBug"):
        var.races.append(
            Race(
                "guardBug",
                "s_dist",
                "shared",
                "the t == 0 guard is missing: every thread of the block stores s_dist",
                (pair("init", "init", "write-write", "any"),),
            )
        )

    src()
    src(SERIAL_HEAD)
    with src.block("{"):
        with src.block("for (int v = 0; v < numv; v++) {"):
            src("const data_t d = data1[v] + 1;")
            with src.block("for (int e = nindex[v]; e < nindex[v + 1]; e++) {"):
                src("const int u = nlist[e];")
                serial_dedup(src, "e", "nindex[v + 1]", "u")
                src("data2[u] = std::min(data2[u], d);")


# --------------------------------------------------------------------------

PATTERNS: dict[str, tuple[Callable[[Source, Variant], None], str]] = {
    "push": (
        push,
        "each vertex adds data1[v] to data2[u] of every distinct out-neighbour u "
        "(device-scope atomicAdd)",
    ),
    "pull": (
        pull,
        "data2[v] = sum of data1[u] over the distinct out-neighbours u of v "
        "(cooperative reduction, one writer per vertex)",
    ),
    "edge": (
        edge,
        "one thread per edge v -> u adds max(data1[v], data1[u]) to data2[u] "
        "(atomicAdd); thread 0 finds the tile's first source as a search hint",
    ),
    "maxprop": (
        maxprop,
        "m = max of data1 over v and its neighbours (atomicMax_block in shared "
        "memory), then data2[u] = max(data2[u], m) for every neighbour u",
    ),
    "degree": (
        degree,
        "data1[v] = distinct out-degree of v (per-lane counts summed through "
        "shared memory); data2[u] += 1 per distinct edge into u (atomicAdd)",
    ),
    "relax": (
        relax,
        "one unit-weight relaxation step: data2[u] = min(data2[u], data1[v] + 1) "
        "(atomicMin), data1[v] + 1 broadcast through shared memory",
    ),
}

# (pattern, options, element type, bug sets)
SUITE: list[tuple[str, tuple[str, ...], str, list[tuple[str, ...]]]] = [
    ("push", (), "int", [(), ("atomicBug",), ("raceBug",), ("boundsBug",)]),
    ("push", ("persistent",), "float", [(), ("atomicBug",)]),
    ("push", ("reverse",), "unsigned long long", [(), ("raceBug",), ("boundsBug",)]),
    ("push", ("cond",), "double", [(), ("atomicBug",)]),
    (
        "push",
        ("warp",),
        "int",
        [(), ("atomicBug",), ("raceBug",), ("syncBug",), ("guardBug",), ("boundsBug",)],
    ),
    (
        "pull",
        ("warp",),
        "float",
        [(), ("atomicBug",), ("raceBug",), ("syncBug",), ("guardBug",), ("boundsBug",)],
    ),
    (
        "pull",
        ("block",),
        "int",
        [(), ("atomicBug",), ("raceBug",), ("syncBug",), ("guardBug",), ("boundsBug",)],
    ),
    ("pull", ("block", "persistent"), "unsigned long long", [(), ("raceBug",), ("syncBug",)]),
    ("pull", ("warp", "shfl"), "double", [(), ("raceBug",), ("guardBug",), ("boundsBug",)]),
    (
        "edge",
        (),
        "unsigned long long",
        [(), ("atomicBug",), ("raceBug",), ("syncBug",), ("guardBug",), ("boundsBug",)],
    ),
    ("edge", ("persistent",), "int", [(), ("syncBug",), ("atomicBug", "boundsBug")]),
    (
        "maxprop",
        (),
        "int",
        [(), ("atomicBug",), ("raceBug",), ("syncBug",), ("guardBug",), ("boundsBug",)],
    ),
    ("maxprop", ("persistent",), "unsigned long long", [(), ("syncBug",), ("guardBug",)]),
    (
        "degree",
        (),
        "unsigned int",
        [(), ("atomicBug",), ("raceBug",), ("syncBug",), ("guardBug",), ("boundsBug",)],
    ),
    (
        "relax",
        (),
        "int",
        [(), ("atomicBug",), ("raceBug",), ("syncBug",), ("guardBug",), ("boundsBug",)],
    ),
]


def render(var: Variant) -> tuple[str, dict[str, int]]:
    """The .cu text of a variant and the line number of each mark."""
    build, summary = PATTERNS[var.pattern]
    src = Source()
    src(f"// hirace Indigo-style mini-suite: {var.name}")
    src(f"// pattern {var.pattern}: {summary}.")
    src("// Generated by generate.py; labels in labels.toml.")
    src()
    src(f"typedef {var.dtype} data_t;")
    src('#include "indigo_cuda.h"')
    src()
    build(src, var)
    src()
    verify(src, var)
    return src.text(), src.marks


def variants() -> list[Variant]:
    out = []
    for pattern, options, dtype, bug_sets in SUITE:
        for bugs in bug_sets:
            out.append(Variant(pattern, options, bugs, dtype))
    return out


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_list(items: tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join(_toml_str(i) for i in items) + "]"


def labels(rendered: list[tuple[Variant, dict[str, int]]]) -> str:
    out = [
        "# Labels of the hirace Indigo-style mini-suite (generated by generate.py).",
        "# One [[code]] per .cu file. Each [[code.race]] is one planted race: the variable",
        "# and memory space raced on, and the pairs of source lines whose accesses race,",
        "# each with the race kind and the graph properties it needs to happen (README.md)",
        "# when run with 256 threads per block and enough blocks to cover the mapping.",
        "# [[code.bounds]] is a planted out-of-bounds access (not a race).",
        "",
    ]
    for var, marks in rendered:
        out += [
            "[[code]]",
            f"name = {_toml_str(var.name)}",
            f"file = {_toml_str(var.name + '.cu')}",
            f"pattern = {_toml_str(var.pattern)}",
            f"options = {_toml_list(var.options)}",
            f"bugs = {_toml_list(var.bugs)}",
            f"data_t = {_toml_str(var.dtype)}",
            f"mapping = {_toml_str(var.mapping)}",
            f"racy = {'true' if var.races else 'false'}",
        ]
        for race in var.races:
            pairs = ", ".join(
                f"{{ lines = [{marks[p.marks[0]]}, {marks[p.marks[1]]}], kind = {_toml_str(p.kind)}"
                f", needs = {_toml_list(p.needs)} }}"
                for p in race.pairs
            )
            out += [
                "",
                "[[code.race]]",
                f"tag = {_toml_str(race.tag)}",
                f"variable = {_toml_str(race.variable)}",
                f"space = {_toml_str(race.space)}",
                f"description = {_toml_str(race.description)}",
                f"pairs = [{pairs}]",
            ]
        for b in var.bounds:
            out += [
                "",
                "[[code.bounds]]",
                f"array = {_toml_str(b.array)}",
                f"line = {marks[b.mark]}",
                f"description = {_toml_str(b.description)}",
                f"needs = {_toml_list(b.needs)}",
            ]
        out.append("")
    return "\n".join(out)


def build_suite() -> dict[str, str]:
    """File name -> contents for every generated file (codes and labels.toml)."""
    files: dict[str, str] = {}
    rendered = []
    for var in variants():
        text, marks = render(var)
        if var.name + ".cu" in files:
            raise ValueError(f"duplicate variant {var.name}")
        for tag in var.bugs:
            if tag in RACE_TAGS and not any(r.tag == tag for r in var.races):
                raise ValueError(f"{var.name}: {tag} planted no labelled race")
        files[var.name + ".cu"] = text
        rendered.append((var, marks))
    files["labels.toml"] = labels(rendered)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare, write nothing")
    parser.add_argument("--out", type=Path, default=HERE, help="output directory")
    args = parser.parse_args(argv)
    files = build_suite()
    stale = [
        n
        for n, text in files.items()
        if not (args.out / n).is_file() or (args.out / n).read_text() != text
    ]
    if args.check:
        for n in stale:
            print(f"{args.out / n}: out of date", file=sys.stderr)
        return 1 if stale else 0
    for n in stale:
        (args.out / n).write_text(files[n])
    print(f"{len(files) - 1} codes; {len(stale)} file(s) written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
