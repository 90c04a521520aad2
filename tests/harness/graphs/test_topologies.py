import math

import networkx as nx
import numpy as np
import pytest

from hopbench.harness.engine import distances as metrics
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.topologies import parse_spec, read_edge_file
from tests.conftest import GRAPHGOLF


def diam(spec):
    return metrics.summary(parse_spec(spec)).diameter


@pytest.mark.parametrize("n", [3, 4, 7, 16, 33])
def test_ring(n):
    g = parse_spec(f"ring:{n}")
    assert g.n == n and g.m == n and set(g.degree.tolist()) == {2}
    assert diam(f"ring:{n}") == n // 2


@pytest.mark.parametrize("dims", [[2, 2], [4, 4], [3, 5], [2, 3, 4], [3, 3, 3, 2], [5, 2]])
def test_mesh_diameter_and_isomorphism(dims):
    spec = "mesh:" + "x".join(map(str, dims))
    g = parse_spec(spec)
    assert diam(spec) == sum(d - 1 for d in dims)
    assert nx.is_isomorphic(g.to_networkx(), nx.grid_graph(dim=dims[::-1]))


@pytest.mark.parametrize("dims", [[8], [4, 4], [3, 5], [2, 3, 4], [6, 6, 6], [2, 2, 2, 2], [3, 3, 3, 3, 3]])
def test_torus_diameter_any_dims(dims):
    spec = "torus:" + "x".join(map(str, dims))
    g = parse_spec(spec)
    assert diam(spec) == sum(d // 2 for d in dims)
    # a size-2 dimension contributes one link per vertex, a larger one two
    assert set(g.degree.tolist()) == {sum(1 if d == 2 else 2 for d in dims)}


def test_torus_matches_networkx_periodic_grid():
    g = parse_spec("torus:3x4x5")
    assert nx.is_isomorphic(g.to_networkx(), nx.grid_graph(dim=[5, 4, 3], periodic=True))


def test_row_major_numbering():
    g = parse_spec("mesh:3x4")
    # vertex (r, c) is r*4 + c: (0,0)-(0,1) and (0,0)-(1,0)
    assert g.has_edge(0, 1) and g.has_edge(0, 4) and not g.has_edge(3, 4)
    t = parse_spec("torus:3x4")
    assert t.has_edge(0, 3) and t.has_edge(0, 8)


@pytest.mark.parametrize("n", range(1, 11))
def test_hypercube(n):
    g = parse_spec(f"hypercube:{n}")
    assert g.n == 2**n and set(g.degree.tolist()) == {n}
    assert diam(f"hypercube:{n}") == n


@pytest.mark.parametrize("n", range(2, 11))
def test_folded_hypercube(n):
    g = parse_spec(f"fhypercube:{n}")
    assert set(g.degree.tolist()) == {n + 1} or n == 2 and set(g.degree.tolist()) == {3}
    assert diam(f"fhypercube:{n}") == math.ceil(n / 2)


@pytest.mark.parametrize("n", range(3, 12))
def test_multiply_twisted_hypercube(n):
    g = parse_spec(f"thypercube:{n}")
    assert set(g.degree.tolist()) == {n}
    # a smaller diameter than the n-cube's n also shows it is not a relabelled hypercube
    assert diam(f"thypercube:{n}") == math.ceil((n + 1) / 2)


@pytest.mark.parametrize("k, n", [(2, 4), (3, 3), (4, 3), (4, 4), (8, 2)])
def test_flattened_butterfly(k, n):
    g = parse_spec(f"flatbutterfly:{k}:{n}")
    assert g.n == k ** (n - 1)
    assert set(g.degree.tolist()) == {(k - 1) * (n - 1)}
    assert diam(f"flatbutterfly:{k}:{n}") == n - 1


def test_hierarchical_ring_matches_the_edgecut_paper():
    s = metrics.summary(parse_spec("hring:8x8"))
    assert s.diameter == 12
    assert round(s.aspl, 2) == 5.84


@pytest.mark.parametrize("n, x", [(1024, 3), (1024, 5), (1024, 8), (4096, 6)])
def test_dln_degree_is_2x_minus_3(n, x):
    g = parse_spec(f"dln:{n}:{x}")
    assert set(g.degree.tolist()) == {2 * x - 3}


@pytest.mark.parametrize("n, x", [(63, 4), (1025, 5)])
def test_dln_on_an_odd_ring_has_degree_2x_minus_2(n, x):
    # floor(N/2) chords do not pair up on an odd ring: each vertex gets two of them
    assert set(parse_spec(f"dln:{n}:{x}").degree.tolist()) == {2 * x - 2}


def test_dln_2_is_the_ring():
    assert parse_spec("dln:64:2") == parse_spec("ring:64")


def test_empty_graph_is_disconnected():
    s = metrics.summary(parse_spec("empty:5"))
    assert s.diameter == math.inf and s.aspl == math.inf and s.unreachable_pairs == 10


def test_file_spec_reads_graph_golf_and_dimacs(tmp_path):
    a = parse_spec(f"file:{GRAPHGOLF / 'topology_512_4.bst.edges'}")
    b = read_edge_file(GRAPHGOLF / "topology_512_4.bst.gph")
    assert a == b and a.n == 512


def test_spec_is_case_insensitive_for_the_kind():
    assert parse_spec("TORUS:4x4") == parse_spec("torus:4X4")


@pytest.mark.parametrize("spec, fragment", [
    ("torus:0x4", "at least 2"),
    ("mesh:4", "at least 2 dimensions"),
    ("ring:2", "N >= 3"),
    ("ring:abc", "integer"),
    ("cube:3", "unknown topology kind"),
    ("torus8x8", "malformed"),
    ("dln:64", "malformed"),
    ("hring:8", "hring:LxM"),
    ("flatbutterfly:1:3", "k >= 2"),
    ("file:/nonexistent/graph.edges", "does not exist"),
    ("hypercube:0", "1 <= n"),
])
def test_bad_specs(spec, fragment):
    with pytest.raises(HopbenchError, match=fragment):
        parse_spec(spec)


@pytest.mark.parametrize("content, fragment", [
    ("0 1\n1 x\n", "expected two vertex ids"),
    ("0 1\n1 2 3\n", "expected two vertex ids"),
    ("0 1\n2 2\n", "self-loop"),
    ("0 1\n1 0\n", "more than once"),
    ("0 -1\n", "negative"),
    ("", "no edges"),
    ("p edge 3 2\ne 1 2\ne 2 4\n", "declared n"),
])
def test_malformed_edge_files(tmp_path, content, fragment):
    p = tmp_path / "g.edges"
    p.write_text(content)
    with pytest.raises(HopbenchError, match=fragment):
        read_edge_file(p)
    # the file name and line number are part of the message where a line is at fault
    if "vertex ids" in fragment:
        with pytest.raises(HopbenchError, match=r"g\.edges:2"):
            read_edge_file(p)


def test_edge_file_allows_comments_and_isolated_vertices_via_header(tmp_path):
    p = tmp_path / "g.edges"
    p.write_text("# a path\n0 1\n\n1 2  # middle\n")
    g = read_edge_file(p)
    assert g.n == 3 and g.m == 2
    q = tmp_path / "h.gph"
    q.write_text("c hello\np edge 5 1\ne 1 2\n")
    h = read_edge_file(q)
    assert h.n == 5 and h.edges.tolist() == [[0, 1]]
    assert np.all(h.degree[2:] == 0)
