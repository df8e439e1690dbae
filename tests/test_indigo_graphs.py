"""ECL graph files, graph generators, the shipped graphs and `hirace graph`."""

from __future__ import annotations

import importlib
import shlex
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hirace_py import cli
from hirace_py.errors import HiraceError
from hirace_py.indigo import generators, properties
from hirace_py.indigo.ecl import EclError, Graph, parse_ecl, read_ecl, write_ecl
from hirace_py.indigo.generators import FAMILIES, GeneratorError, generate

ROOT = Path(__file__).resolve().parents[1]
GRAPHS = ROOT / "indigo" / "graphs"
RANDOM_FAMILIES = [name for name, fam in FAMILIES.items() if fam.uses_seed]


# ---------------------------------------------------------------- helpers


def ecl_bytes(nodes: int, edges: int, nindex: list[int], nlist: list[int]) -> bytes:
    """Raw little-endian ECL bytes, with no validation (to build bad files)."""
    words = [nodes, edges, *nindex, *nlist]
    return struct.pack(f"<{len(words)}i", *words)


def edge_set(g: Graph) -> set[tuple[int, int]]:
    return set(zip(g.edge_sources().tolist(), g.nlist.tolist(), strict=True))


@st.composite
def csr_graphs(draw: st.DrawFn) -> Graph:
    """Random valid CSR graphs, self-loops and duplicates included."""
    nodes = draw(st.integers(0, 25))
    degrees = draw(st.lists(st.integers(0, 6), min_size=nodes, max_size=nodes))
    nlist = (
        draw(st.lists(st.integers(0, nodes - 1), min_size=sum(degrees), max_size=sum(degrees)))
        if nodes
        else []
    )
    nindex = np.concatenate([[0], np.cumsum(degrees, dtype=np.int64)])
    return Graph(nodes, len(nlist), nindex, np.array(nlist, dtype=np.int32))


# ---------------------------------------------------------------- ECL format


@given(csr_graphs())
@settings(max_examples=150)
def test_ecl_round_trip_bytes(g: Graph) -> None:
    data = g.to_bytes()
    assert len(data) == 4 * (2 + g.nodes + 1 + g.edges)
    assert data[:8] == struct.pack("<2i", g.nodes, g.edges)
    back = parse_ecl(data, "mem.egr")
    assert back == g
    assert back.to_bytes() == data
    assert back.nindex.dtype == np.int32 and back.nlist.dtype == np.int32


@given(csr_graphs())
@settings(max_examples=30)
def test_ecl_round_trip_file(tmp_path_factory: pytest.TempPathFactory, g: Graph) -> None:
    path = tmp_path_factory.mktemp("ecl") / "g.egr"
    write_ecl(g, path)
    assert read_ecl(path) == g
    assert path.read_bytes() == g.to_bytes()


def test_graph_is_immutable() -> None:
    g = generate("dag", 10, seed=1)
    with pytest.raises(ValueError):
        g.nlist[0] = 3
    with pytest.raises(AttributeError):
        g.nodes = 4  # type: ignore[misc]


GOOD = ecl_bytes(3, 2, [0, 1, 2, 2], [1, 2])

MALFORMED = {
    "empty": (b"", "truncated"),
    "short_header": (GOOD[:6], "truncated"),
    "negative_nodes": (ecl_bytes(-1, 0, [0], []), "negative node count"),
    "negative_edges": (ecl_bytes(3, -2, [0, 0, 0, 0], []), "negative edge count"),
    "truncated_nindex": (GOOD[:16], "truncated"),
    "truncated_nlist": (GOOD[:-2], "truncated"),
    "trailing_bytes": (GOOD + b"\0", "trailing bytes"),
    "trailing_word": (GOOD + struct.pack("<i", 7), "trailing bytes"),
    "nindex_not_zero": (ecl_bytes(3, 2, [1, 1, 2, 2], [1, 2]), "nindex[0]"),
    "nindex_not_monotone": (ecl_bytes(3, 2, [0, 2, 1, 2], [1, 2]), "not monotone"),
    "nindex_end_not_edges": (ecl_bytes(3, 2, [0, 1, 1, 1], [1, 2]), "edge count"),
    "nlist_too_large": (ecl_bytes(3, 2, [0, 1, 2, 2], [1, 3]), "out of range"),
    "nlist_negative": (ecl_bytes(3, 2, [0, 1, 2, 2], [-1, 2]), "out of range"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_file_rejected_naming_file(tmp_path: Path, case: str) -> None:
    data, what = MALFORMED[case]
    path = tmp_path / f"bad_{case}.egr"
    path.write_bytes(data)
    with pytest.raises(EclError) as info:
        read_ecl(path)
    message = str(info.value)
    assert str(path) in message
    assert what in message
    assert isinstance(info.value, HiraceError)
    assert "\n" not in message


def test_good_file_of_malformed_cases_is_accepted() -> None:
    g = parse_ecl(GOOD, "good.egr")
    assert (g.nodes, g.edges) == (3, 2)
    assert g.neighbours(0).tolist() == [1]


def test_missing_file_named(tmp_path: Path) -> None:
    path = tmp_path / "nothere.egr"
    with pytest.raises(EclError, match=r"nothere\.egr"):
        read_ecl(path)


def test_graph_constructor_validates() -> None:
    with pytest.raises(EclError, match="out of range"):
        Graph(2, 1, np.array([0, 1, 1]), np.array([5]))
    with pytest.raises(EclError, match="nindex has 2 entries"):
        Graph(2, 0, np.array([0, 0]), np.array([], dtype=np.int32))
    with pytest.raises(EclError, match="out of range"):
        Graph.from_edges(3, [0, 1], [1, 3])


def test_from_edges_sorts_lists_and_keeps_edges() -> None:
    g = Graph.from_edges(4, [2, 0, 2, 0, 3], [1, 3, 0, 1, 3])
    assert g.nindex.tolist() == [0, 2, 2, 4, 5]
    assert g.nlist.tolist() == [1, 3, 0, 1, 3]


# ---------------------------------------------------------------- generators


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_same_arguments_same_bytes(family: str) -> None:
    kw = {"degree": 2.0} if FAMILIES[family].uses_degree else {}
    a = generate(family, 60, seed=11, **kw).to_bytes()
    b = generate(family, 60, seed=11, **kw).to_bytes()
    assert a == b


@pytest.mark.parametrize("family", RANDOM_FAMILIES)
def test_different_seeds_differ(family: str) -> None:
    graphs = {generate(family, 60, seed=s, degree=2.0).to_bytes() for s in range(5)}
    assert len(graphs) == 5


@pytest.mark.parametrize("family", sorted(FAMILIES))
@given(nodes=st.integers(1, 90), seed=st.integers(0, 2**32), degree=st.floats(0, 3))
@settings(max_examples=25, deadline=None)
def test_every_family_is_simple_and_sorted(family: str, nodes: int, seed: int, degree: float):
    fam = FAMILIES[family]
    if fam.uses_degree:
        degree = min(degree, (nodes - 1) / 2)
        g = generate(family, nodes, seed=seed, degree=degree)
    else:
        g = generate(family, nodes, seed=seed)
    assert g.nodes == nodes
    assert properties.self_loops(g) == 0
    assert properties.duplicate_edges(g) == 0
    assert properties.sorted_lists(g)
    assert parse_ecl(g.to_bytes()) == g


@given(nodes=st.integers(1, 80), seed=st.integers(0, 10**6), degree=st.floats(0, 4))
@settings(max_examples=40, deadline=None)
def test_dag_edges_go_low_to_high(nodes: int, seed: int, degree: float) -> None:
    degree = min(degree, (nodes - 1) / 2)
    g = generate("dag", nodes, seed=seed, degree=degree)
    assert g.edges == round(degree * nodes)
    assert np.all(g.edge_sources() < g.nlist)
    assert properties.is_dag(g)


@given(nodes=st.integers(1, 80), seed=st.integers(0, 10**6), degree=st.floats(0, 4))
@settings(max_examples=40, deadline=None)
def test_counter_dag_edges_go_high_to_low(nodes: int, seed: int, degree: float) -> None:
    degree = min(degree, (nodes - 1) / 2)
    g = generate("counter_dag", nodes, seed=seed, degree=degree)
    assert np.all(g.edge_sources() > g.nlist)
    assert properties.is_dag(g)
    mirror = generate("dag", nodes, seed=seed, degree=degree)
    assert edge_set(g) == {(b, a) for a, b in edge_set(mirror)}


def test_power_law_degree_and_directions() -> None:
    g = generate("power_law", 400, seed=3, degree=3.0)
    assert 0.9 * 3 * 400 <= g.edges <= 3 * 400
    src, dst = g.edge_sources(), g.nlist
    assert np.any(src < dst) and np.any(src > dst)
    pairs = {tuple(sorted(p)) for p in edge_set(g)}
    assert len(pairs) == g.edges  # no antiparallel pair
    total = g.in_degrees() + g.out_degrees()
    assert total.max() >= 5 * total.mean()  # preferential attachment makes hubs


def test_power_law_fractional_degree() -> None:
    g = generate("power_law", 1000, seed=5, degree=1.5)
    assert 1.3 * 1000 <= g.edges <= 1.5 * 1000


@pytest.mark.parametrize("nodes", [1, 2, 3, 8, 60])
def test_star_structure(nodes: int) -> None:
    g = generate("star", nodes, seed=0)
    assert g.edges == 2 * (nodes - 1)
    assert g.neighbours(0).tolist() == list(range(1, nodes))
    for leaf in range(1, nodes):
        assert g.neighbours(leaf).tolist() == [0]
    assert g.in_degrees()[0] == nodes - 1


@pytest.mark.parametrize("nodes", [1, 2, 5, 9, 10, 64, 70])
def test_grid_structure(nodes: int) -> None:
    g = generate("grid", nodes, seed=0)
    cols = generators.grid_columns(nodes)
    assert cols == int(np.ceil(np.sqrt(nodes)))
    expected = set()
    for i in range(nodes):
        if i % cols + 1 < cols and i + 1 < nodes:
            expected.add((i, i + 1))
        if i + cols < nodes:
            expected.add((i, i + cols))
    assert edge_set(g) == expected
    assert properties.direction(g) in ("low->high", "none")
    assert g.out_degrees().max(initial=0) <= 2


@pytest.mark.parametrize("nodes", [1, 2, 3, 7, 8, 60])
def test_binary_tree_structure(nodes: int) -> None:
    g = generate("binary_tree", nodes, seed=0)
    assert g.edges == nodes - 1
    assert g.out_degrees().max(initial=0) <= 2
    indeg = g.in_degrees()
    assert indeg[0] == 0 and np.all(indeg[1:] == 1)
    for v in range(nodes):
        assert g.neighbours(v).tolist() == [c for c in (2 * v + 1, 2 * v + 2) if c < nodes]
    assert properties.is_dag(g)


@pytest.mark.parametrize(
    ("family", "nodes", "degree", "what"),
    [
        ("tree", 5, None, "unknown graph family 'tree'"),
        ("dag", 0, 1.0, "nodes must be"),
        ("dag", 5, 2.5, "too high"),
        ("counter_dag", 5, -1.0, ">= 0"),
        ("power_law", 5, float("nan"), "finite"),
        ("star", 5, 1.0, "takes no degree"),
    ],
)
def test_generator_rejects_bad_arguments(family: str, nodes: int, degree: float | None, what):
    with pytest.raises(GeneratorError, match=what):
        generate(family, nodes, seed=1, degree=degree)


def test_properties_on_small_graphs() -> None:
    cyc = Graph.from_edges(3, [0, 1, 2], [1, 2, 0])
    assert not properties.is_dag(cyc)
    assert properties.direction(cyc) == "mixed"
    assert not properties.has_shared_neighbour(cyc)
    assert not properties.has_multi_neighbour_vertex(cyc)
    assert properties.has_path2(cyc)
    share = Graph.from_edges(3, [0, 1, 0], [2, 2, 1])
    assert properties.has_shared_neighbour(share)
    assert properties.has_multi_neighbour_vertex(share)
    assert properties.minisuite_qualifies(share)
    loop = Graph.from_edges(2, [0, 0], [0, 0])
    assert properties.self_loops(loop) == 2
    assert properties.duplicate_edges(loop) == 1
    assert not properties.is_dag(loop)
    assert not properties.has_proper_edge(loop)
    unsorted = Graph(2, 2, np.array([0, 2, 2]), np.array([1, 0]))
    assert not properties.sorted_lists(unsorted)


# ---------------------------------------------------------------- shipped graphs


def readme_commands() -> list[list[str]]:
    lines = (GRAPHS / "README.md").read_text().splitlines()
    return [shlex.split(ln)[1:] for ln in lines if ln.startswith("hirace graph gen ")]


def test_readme_lists_every_shipped_graph() -> None:
    outputs = {argv[argv.index("-o") + 1] for argv in readme_commands()}
    shipped = {p.name for p in GRAPHS.glob("*.egr")}
    assert outputs == shipped
    families = {argv[2] for argv in readme_commands()}
    assert families == set(FAMILIES)
    sizes = [read_ecl(GRAPHS / name) for name in shipped]
    assert all(5 <= g.nodes <= 200 for g in sizes)
    assert any(g.edges == 0 for g in sizes)


def _importable(name: str) -> bool:
    try:
        importlib.import_module(f"hirace_py.commands.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"hirace_py.commands.{name}":
            return False
        raise
    return True


@pytest.fixture
def hirace(monkeypatch: pytest.MonkeyPatch):
    """`hirace_py.cli.main`, dispatching only to sub-command modules that exist
    (other sub-commands are built separately); `graph` must be among them."""
    assert "graph" in cli.COMMANDS
    monkeypatch.setattr(cli, "COMMANDS", [c for c in cli.COMMANDS if _importable(c)])
    return cli.main


@pytest.mark.parametrize("argv", readme_commands(), ids=lambda a: a[a.index("-o") + 1])
def test_shipped_graph_regenerates_byte_identically(hirace, tmp_path: Path, argv: list[str]):
    name = argv[argv.index("-o") + 1]
    out = tmp_path / name
    args = [str(out) if a == name else a for a in argv]
    assert hirace(args) == 0
    assert out.read_bytes() == (GRAPHS / name).read_bytes()


def test_most_shipped_graphs_qualify_for_the_minisuite() -> None:
    status = {p.name: properties.minisuite_qualifies(read_ecl(p)) for p in GRAPHS.glob("*.egr")}
    assert {n for n, ok in status.items() if not ok} == {
        "binary_tree_7.egr",
        "binary_tree_60.egr",
        "empty_10.egr",
    }


# ---------------------------------------------------------------- CLI


def test_cli_gen_and_info(hirace, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "d.egr"
    assert (
        hirace(
            [
                "graph",
                "gen",
                "dag",
                "--nodes",
                "20",
                "--degree",
                "1.5",
                "--seed",
                "4",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert read_ecl(out) == generate("dag", 20, seed=4, degree=1.5)
    capsys.readouterr()
    assert hirace(["graph", "info", str(out)]) == 0
    text = capsys.readouterr().out
    info = dict(line.split(": ", 1) for line in text.splitlines())
    assert info["nodes"] == "20"
    assert info["edges"] == "30"
    assert info["DAG"] == "yes"
    assert info["edge direction"] == "low->high"
    assert info["out-degree"].startswith("min ") and "mean 1.50" in info["out-degree"]
    assert info["self-loops"] == "0"


def test_cli_info_reports_cycles(hirace, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    out = tmp_path / "s.egr"
    assert hirace(["graph", "gen", "star", "--nodes", "5", "--seed", "0", "-o", str(out)]) == 0
    capsys.readouterr()
    assert hirace(["graph", "info", str(out)]) == 0
    text = capsys.readouterr().out
    assert "DAG: no" in text
    assert "shared neighbour: yes" in text
    assert "out-degree: min 1, mean 1.60, max 4" in text


@pytest.mark.parametrize(
    ("argv", "what"),
    [
        (["graph", "gen", "nosuch", "--nodes", "5", "--seed", "1"], "unknown graph family"),
        (["graph", "gen", "star", "--nodes", "5", "--degree", "2", "--seed", "1"], "no degree"),
        (["graph", "gen", "dag", "--nodes", "0", "--seed", "1"], "nodes must be"),
    ],
)
def test_cli_gen_errors_exit_2_with_one_line(
    hirace, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], what: str
) -> None:
    out = tmp_path / "x.egr"
    assert hirace([*argv, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("hirace: error:")
    assert what in err
    assert not out.exists()


def test_cli_usage_error_exits_2(hirace, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        hirace(["graph", "gen", "dag", "--nodes", "5"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--seed" in err


def test_cli_info_bad_file_exit_2_naming_it(
    hirace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "broken.egr"
    bad.write_bytes(GOOD + b"xx")
    assert hirace(["graph", "info", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert str(bad) in err and "trailing bytes" in err
