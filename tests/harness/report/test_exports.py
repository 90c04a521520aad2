"""Exports: BookSim anynet read back by a parser written from the format's description, GraphML read
back by networkx, Graph Golf edge lists, routing tables as JSON, and ``hopbench export`` itself."""
from __future__ import annotations

import gzip
import json
import re

import networkx as nx
import numpy as np
import pytest

from hopbench.harness.engine.distances import distance_matrix
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.edge_list import edge_list_text
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution
from hopbench.harness.problems.shortcut.solution_file import solution_to_dict
from hopbench.harness.report.exports import (
    anynet_text,
    endpoints_per_router,
    export_text,
    load_network,
    write_export,
)


@pytest.fixture(scope="module")
def solution_doc():
    """ring:16 with four shortcuts, cap 4 (vertices 0, 4, 8, 12 get two shortcuts each: degree 4)."""
    problem = ShortcutProblem(parse_spec("ring:16"), 4, 4, "aspl", base_spec="ring:16")
    sol = Solution(problem, [[0, 8], [4, 12], [0, 4], [8, 12]], solver="hand", seed=0)
    return solution_to_dict(sol)


@pytest.fixture(scope="module")
def routes_doc():
    """A DOR routing table of the Desmos subset desmos8 on the 4x2x2x2 torus."""
    from hopbench import solvers
    from hopbench.harness.problems.routing import make_problem
    from hopbench.solvers.contract.budget import Budget
    from hopbench.solvers.contract.execution import execute

    problem = make_problem("4x2x2x2", subset="desmos8")
    outcome = execute(solvers.create("dor"), problem, seed=1, budget=Budget(time_s=10))
    return outcome.solution.to_dict()


def reference_graph(doc) -> nx.Graph:
    """The augmented graph, built with networkx from the document's fields, not with hopbench."""
    n = int(doc["problem"]["base"].split(":")[1])
    g = nx.cycle_graph(n)
    g.add_edges_from(map(tuple, doc["shortcuts"]))
    return g


# --------------------------------------------------------------------------- BookSim anynet


def parse_anynet(text: str) -> tuple[dict[int, set[int]], dict[int, int]]:
    """A parser written from the format's description (BookSim manual, anynet):

    every non-empty line describes one router: the keyword ``router`` and its id, then any
    number of ``node <id>`` (an endpoint attached to this router) and ``router <id>``
    (a link to another router) items; keywords are lowercase and separated from ids by
    single spaces.  Links are bidirectional; an endpoint hangs off exactly one router.
    Returns (adjacency, endpoint -> router).
    """
    adjacency: dict[int, set[int]] = {}
    endpoint_of: dict[int, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line:
            continue
        assert line == line.strip() and "  " not in line and "\t" not in line, f"line {number}: spacing"
        tokens = line.split(" ")
        assert len(tokens) % 2 == 0, f"line {number}: keyword without id"
        pairs = list(zip(tokens[0::2], tokens[1::2]))
        assert pairs[0][0] == "router", f"line {number} must start with 'router R'"
        for keyword, ident in pairs:
            assert keyword in ("router", "node"), f"line {number}: unknown keyword {keyword!r}"
            assert re.fullmatch(r"0|[1-9][0-9]*", ident), f"line {number}: bad id {ident!r}"
        head = int(pairs[0][1])
        assert head not in adjacency, f"router {head} described twice"
        adjacency[head] = set()
        for keyword, ident in pairs[1:]:
            if keyword == "node":
                assert int(ident) not in endpoint_of, f"endpoint {ident} attached twice"
                endpoint_of[int(ident)] = head
            else:
                assert int(ident) != head, f"router {head} linked to itself"
                adjacency[head].add(int(ident))
    for r, nbrs in adjacency.items():  # every link is listed on both of its routers' lines
        for s in nbrs:
            assert r in adjacency.get(s, set()), f"link {r}-{s} listed on one side only"
    return adjacency, endpoint_of


def test_anynet_reads_back_into_the_same_network(solution_doc):
    text = export_text(load_network(solution_doc), "anynet", endpoints=3)
    adjacency, endpoint_of = parse_anynet(text)
    expected = reference_graph(solution_doc)
    assert sorted(adjacency) == list(range(16))
    got = nx.Graph([(r, s) for r, nbrs in adjacency.items() for s in nbrs])
    assert nx.utils.edges_equal(got.edges, expected.edges)
    assert sorted(endpoint_of) == list(range(48))
    assert all(sum(1 for r in endpoint_of.values() if r == k) == 3 for k in range(16))


def test_anynet_of_a_routing_table_puts_endpoints_on_routed_nodes(routes_doc):
    network = load_network(routes_doc)
    adjacency, endpoint_of = parse_anynet(export_text(network, "anynet"))
    assert sorted(set(endpoint_of.values())) == routes_doc["nodes"]
    from hopbench.harness.problems.routing import torus

    net = torus("4x2x2x2")
    assert sorted(adjacency) == list(range(net.num_nodes))
    for u in range(net.num_nodes):
        assert adjacency[u] == {int(v) for v in net.neighbor[u] if v >= 0}


def test_anynet_text_directly():
    g = parse_spec("ring:4")
    assert anynet_text(g, np.array([1, 0, 2, 0])) == (
        "router 0 node 0 router 1 router 3\nrouter 1 router 0 router 2\n"
        "router 2 node 1 node 2 router 1 router 3\nrouter 3 router 0 router 2\n")


# --------------------------------------------------------------------------- GraphML


def test_graphml_reads_back_isomorphic_with_int_endpoints(solution_doc, tmp_path):
    network = load_network(solution_doc)
    path = tmp_path / "g.graphml"
    write_export(network, "graphml", path, endpoints="free")
    text = path.read_text()
    assert 'attr.name="endpoints" attr.type="int"' in text
    g = nx.read_graphml(path, node_type=int)
    expected = reference_graph(solution_doc)
    assert nx.is_isomorphic(g, expected)
    assert nx.utils.edges_equal(g.edges, expected.edges)  # and the same vertex numbering
    degree = dict(expected.degree)
    for v, data in g.nodes(data=True):
        assert isinstance(data["endpoints"], int) and data["endpoints"] == 4 - degree[v]
    shortcuts = {tuple(sorted(e)) for e in solution_doc["shortcuts"]}
    assert {tuple(sorted((u, v))) for u, v, d in g.edges(data=True) if d["shortcut"]} == shortcuts


def test_graphml_of_a_torus_spec(tmp_path):
    path = tmp_path / "t.graphml"
    write_export(load_network(None, topology="torus:4x4"), "graphml", path, endpoints=2)
    g = nx.read_graphml(path, node_type=int)
    assert nx.is_isomorphic(g, nx.grid_2d_graph(4, 4, periodic=True))
    assert {d["endpoints"] for _, d in g.nodes(data=True)} == {2}


# --------------------------------------------------------------------------- Graph Golf edge list


def test_golf_edge_list_round_trips(solution_doc, tmp_path):
    network = load_network(solution_doc)
    path = tmp_path / "g.edges"
    write_export(network, "golf", path)
    assert path.read_text() == export_text(network, "golf") == edge_list_text(network.graph)
    assert parse_spec(f"file:{path}") == network.graph
    lines = path.read_text().splitlines()
    assert len(lines) == 20 and all(re.fullmatch(r"\d+ \d+", ln) for ln in lines)


# --------------------------------------------------------------------------- routing tables as JSON


def test_routing_table_json_gives_valid_paths(routes_doc):
    doc = json.loads(export_text(load_network(routes_doc), "json"))
    assert doc["format"] == "hopbench.routing-paths/1"
    links = {tuple(e) for e in doc["topology"]["links"]}
    nodes = routes_doc["nodes"]
    assert len(doc["routes"]) == len(nodes) * (len(nodes) - 1)
    nb = doc["port_neighbors"]
    for r in doc["routes"]:
        path = r["path"]
        assert path[0] == r["src"] and path[-1] == r["dst"] and len(path) == len(r["ports"]) + 1
        for (a, b), port in zip(zip(path, path[1:]), r["ports"]):
            assert (min(a, b), max(a, b)) in links and nb[a][port] == b
        names = routes_doc["routes"][f"{r['src']},{r['dst']}"]
        assert [doc["ports"][n] for n in names] == r["ports"]


def test_next_hop_json_routes_along_shortest_paths(solution_doc):
    network = load_network(solution_doc)
    doc = json.loads(export_text(network, "json"))
    assert doc["format"] == "hopbench.next-hop/1"
    table = np.array(doc["next_hop"])
    D = distance_matrix(network.graph).astype(int)
    g = reference_graph(solution_doc)
    for u in range(16):
        for d in range(16):
            if u == d:
                assert table[u, d] == -1
                continue
            hops, v = 0, u
            while v != d:
                w = int(table[v, d])
                assert g.has_edge(v, w)
                v, hops = w, hops + 1
            assert hops == D[u, d]


def test_next_hop_marks_unreachable_pairs():
    doc = json.loads(export_text(load_network(None, topology="empty:3"), "json"))
    assert doc["next_hop"] == [[-1] * 3] * 3


# --------------------------------------------------------------------------- endpoints and inputs


def test_endpoints_per_router(solution_doc, routes_doc):
    network = load_network(solution_doc)
    assert endpoints_per_router(network, None).tolist() == [1] * 16
    assert endpoints_per_router(network, "free").tolist() == [4 - d for d in network.graph.degree.tolist()]
    with pytest.raises(HopbenchError, match=">= 0"):
        endpoints_per_router(network, "-1")
    with pytest.raises(HopbenchError, match="number of endpoints"):
        endpoints_per_router(network, "lots")
    with pytest.raises(HopbenchError, match="radix"):
        endpoints_per_router(load_network(routes_doc), "free")
    with pytest.raises(HopbenchError, match="radix"):
        endpoints_per_router(load_network(None, topology="ring:5"), "free")


def test_torus_graph_uses_the_routing_node_ids():
    from hopbench import solvers
    from hopbench.harness.problems.routing import make_problem
    from hopbench.solvers.contract.budget import Budget
    from hopbench.solvers.contract.execution import execute

    table = execute(solvers.create("dor"), make_problem("4x3"), seed=1, budget=Budget(time_s=10)).solution
    network = load_network(table.to_dict())
    g = network.graph
    assert g.has_edge(0, 1) and g.has_edge(0, 3) and g.has_edge(0, 4)  # X varies fastest: 0-1 is +X
    assert g.m == 24 and network.radix == 4 and network.shortcut_edges is None


# --------------------------------------------------------------------------- the one network loader


def test_every_kind_gives_the_network_of_its_documents(solution_doc, routes_doc):
    """Solutions and routing tables go through their kinds' graph_of: the loader names no kind."""
    from hopbench.harness.problems import networks
    from hopbench.harness.problems.registry import get_kind

    sol = networks.from_document(solution_doc)
    assert sol.graph == get_kind("shortcut").graph_of(solution_doc).graph
    assert sol.radix == 4 and sorted(map(tuple, sol.shortcut_edges.tolist())) == [(0, 4), (0, 8), (4, 12), (8, 12)]
    assert sol.meta["problem"]["base"] == "ring:16" and sol.meta["solver"]["name"] == "hand" and sol.routes is None
    routes = networks.from_document(routes_doc)
    assert routes.graph.n == 32 and routes.routes is not None and routes.radix == 8
    assert routes.meta["problem"] == routes.routes.problem.describe()


def test_the_loader_tries_each_accepted_form(solution_doc, tmp_path):
    from hopbench.harness.problems import networks

    sol = tmp_path / "s.json"
    sol.write_text(json.dumps(solution_doc))
    edges = tmp_path / "g.edges"
    edges.write_text("0 1\n1 2\n")
    assert networks.load_network(str(sol)).graph == load_network(solution_doc).graph
    assert networks.load_network(str(edges)).graph.m == 2
    assert networks.load_network(" torus:4x4 ").graph == parse_spec("torus:4x4")
    with pytest.raises(HopbenchError, match="neither a file nor a topology spec; give e.g. torus:8x8"):
        networks.load_network(str(edges), forms=("topology",))
    with pytest.raises(HopbenchError, match="cannot cost format 'nope'; give a hopbench result document"):
        networks.from_document({"format": "nope"}, "x.json", action="cost")


def test_export_command(cli, solution_doc, routes_doc, tmp_path):
    sol = tmp_path / "s.json"
    sol.write_text(json.dumps(solution_doc))
    code, out, err = cli("export", sol, "--format", "anynet", "--endpoints", "2")
    assert code == 0, err
    assert parse_anynet(out)[0] and len(parse_anynet(out)[1]) == 32
    gz = tmp_path / "r.json.gz"
    gz.write_bytes(gzip.compress(json.dumps(routes_doc).encode()))
    target = tmp_path / "r.graphml"
    code, out, err = cli("export", gz, "--format", "graphml", "-o", target)
    assert code == 0 and target.exists() and "wrote" in err
    assert nx.read_graphml(target, node_type=int).number_of_nodes() == 32


@pytest.mark.parametrize("args, fragment", [
    ([], "either a result FILE or --topology"),
    (["{sol}", "--topology", "ring:8"], "either a result FILE or --topology"),
    (["{sol}", "--endpoints", "2", "--format", "golf"], "--endpoints applies to graphml and anynet"),
    (["{bad}"], "cannot export format 'nope'"),
    (["{broken}"], "is not a valid solution"),
    (["{sol}", "-o", "{tmp}/no/such/dir/x"], "does not exist"),
    (["missing.json"], "does not exist"),
    (["--topology", "ring:2"], "ring"),
])
def test_export_command_bad_input(cli, solution_doc, tmp_path, args, fragment):
    sol = tmp_path / "s.json"
    sol.write_text(json.dumps(solution_doc))
    (tmp_path / "bad.json").write_text(json.dumps({"format": "nope"}))
    broken = dict(solution_doc, shortcuts=[[0, 1]])  # already a ring edge
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    names = {"sol": sol, "bad": tmp_path / "bad.json", "broken": tmp_path / "broken.json", "tmp": tmp_path}
    argv = [a.format(**names) for a in args]
    if "--format" not in argv:
        argv += ["--format", "anynet"]
    code, _, err = cli("export", *argv)
    assert code == 2 and fragment in err and err.count("\n") == 1, err


def test_the_command_offers_every_export_format():
    # hopbench.harness.cli.export repeats the tuple so that 'hopbench --help' need not import numpy
    from hopbench.harness.cli.export import FORMATS as offered
    from hopbench.harness.report.exports import FORMATS

    assert offered == FORMATS
