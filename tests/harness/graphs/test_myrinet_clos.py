"""Koibuchi's Myrinet-Clos and its random variants: the port counts of Sect. V-A, each variant's rule, checked
with networkx (not hopbench's distance engine), and the suite's shipped network files equal to what the
construction gives."""
from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs import myrinet_clos as mc

ROOT = Path(__file__).resolve().parents[3]


def nx_graph(graph) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(graph.n))
    g.add_edges_from(graph.edges.tolist())
    return g


def layer(v: int) -> tuple[str, int]:
    """(leaf | midspine | spine, group or spine index)."""
    if v < mc.GROUPS * mc.LEAVES:
        return "leaf", v // mc.LEAVES
    if v < mc.GROUPS * (mc.LEAVES + mc.MIDSPINES):
        return "midspine", (v - mc.GROUPS * mc.LEAVES) // mc.MIDSPINES
    return "spine", v - mc.GROUPS * (mc.LEAVES + mc.MIDSPINES)


@pytest.mark.parametrize("wiring", mc.WIRINGS)
def test_the_original_has_the_papers_port_counts_and_leaf_distances(wiring):
    graph, hosts = mc.myrinet_clos(wiring)
    g = nx_graph(graph)
    assert graph.n == 80 and g.number_of_edges() == graph.m == 512 and hosts.sum() == 256
    ports = np.array([g.degree(v) for v in range(80)]) + hosts
    assert (ports == 16).all()  # 80 16-port switches, every port used
    for v in range(80):
        kind, group = layer(v)
        seen = [layer(u) for u in g[v]]
        if kind == "leaf":  # 8 hosts, 8 links up to the midspines of its own group
            assert hosts[v] == 8 and sorted(seen) == [("midspine", group)] * 8
        elif kind == "spine":  # 4 links from each group
            assert hosts[v] == 0 and sorted(seen) == sorted([("midspine", h) for h in range(4)] * 4)
    d = dict(nx.all_pairs_shortest_path_length(g))
    leaves = range(32)
    assert {d[a][b] for a in leaves for b in leaves if a != b and a // 8 == b // 8} == {2}
    assert {d[a][b] for a in leaves for b in leaves if a // 8 != b // 8} == {4}


def test_the_two_cabling_plans_are_different_networks():
    """The reason no plan is *the* Myrinet-Clos (fat_tree's docstring): the switch ASPLs differ."""
    a, b = (nx.average_shortest_path_length(nx_graph(mc.myrinet_clos(w)[0])) for w in mc.WIRINGS)
    assert a == pytest.approx(2.5671, abs=1e-4) and b == pytest.approx(2.4456, abs=1e-4)


@pytest.mark.parametrize("percent", [20, 50, 80])
def test_a_swap_exchanges_midspine_ends_and_keeps_every_degree(percent):
    original, _ = mc.myrinet_clos("blocks")
    graph, hosts = mc.myrinet_clos("blocks", f"swap {percent}", seed=3)
    edges = {tuple(sorted(e)) for e in graph.edges.tolist()}
    assert len(edges) == graph.m == 512  # no link doubled
    assert (graph.degree == original.degree).all()
    before = {tuple(sorted(e)) for e in original.edges.tolist()}
    moved = edges - before
    # every swap replaces two leaf-midspine links by two others; a few may land back on links that were there
    assert all({layer(u)[0], layer(v)[0]} == {"leaf", "midspine"} for u, v in moved)
    assert 0.8 * percent / 100 * 256 <= len(moved) <= 2 * round(percent / 100 * 128)  # X % of 256, in pairs
    assert nx.is_connected(nx_graph(graph))


@pytest.mark.parametrize("k", [1, 2])
def test_links_added_per_switch_raise_every_degree_by_k(k):
    original, _ = mc.myrinet_clos("stride")
    graph, _ = mc.myrinet_clos("stride", f"add {k}/switch", seed=2)
    assert len({tuple(sorted(e)) for e in graph.edges.tolist()}) == graph.m == 512 + 40 * k
    assert (graph.degree == original.degree + k).all()


@pytest.mark.parametrize("shape", ["pairs", "cycle"])
@pytest.mark.parametrize("k", [1, 2])
def test_links_added_per_group_join_each_group_to_one_other_block(shape, k):
    original, _ = mc.myrinet_clos("blocks")
    graph, _ = mc.myrinet_clos("blocks", f"add {8 * k}/{shape}", seed=5)
    added = {tuple(sorted(e)) for e in graph.edges.tolist()} - {tuple(sorted(e)) for e in original.edges.tolist()}
    assert len(added) == 32 * k
    target = {}
    for u, v in added:
        (lk, g), (mk, h) = sorted([layer(u), layer(v)])
        assert (lk, mk) == ("leaf", "midspine") and g != h
        assert target.setdefault(g, h) == h  # one block for the whole group
    extra = graph.degree - original.degree
    assert (extra[:64] == k).all() and (extra[64:] == 0).all()  # every leaf and midspine k more, spines none
    cycle = nx.DiGraph(list(target.items()))
    if shape == "pairs":
        assert all(target[target[g]] == g for g in target)
    else:
        assert nx.is_strongly_connected(cycle) and cycle.number_of_nodes() == 4


def test_a_variant_is_a_function_of_its_seed():
    a, _ = mc.myrinet_clos("blocks", "swap 50", seed=1)
    b, _ = mc.myrinet_clos("blocks", "swap 50", seed=1)
    c, _ = mc.myrinet_clos("blocks", "swap 50", seed=2)
    assert (a.edges == b.edges).all() and not (a.edges == c.edges).all()


@pytest.mark.parametrize("wiring, variant, message", [
    ("fancy", "original", "unknown Myrinet-Clos wiring 'fancy'"),
    ("blocks", "swap 30", "unknown Myrinet-Clos variant 'swap 30'"),
])
def test_an_unknown_wiring_or_variant_is_refused(wiring, variant, message):
    with pytest.raises(HopbenchError, match=message):
        mc.myrinet_clos(wiring, variant)


@pytest.mark.parametrize("seed", [-1, 1.5, True, "1"])
def test_a_seed_that_is_no_integer_from_0_is_refused(seed):
    with pytest.raises(HopbenchError, match="seed is an integer >= 0"):
        mc.myrinet_clos("blocks", "swap 20", seed)


def test_the_suites_network_files_are_the_construction_and_verify():
    """instances/networks/myrinet-clos holds what scripts/make_koibuchi2012_clos.py writes (regenerate with it), and
    every file is a valid host-switch result."""
    import importlib.util

    from hopbench.harness.bench.suites import load_suite
    from hopbench.harness.problems.registry import verify_document

    spec = importlib.util.spec_from_file_location("make_clos", ROOT / "scripts" / "make_koibuchi2012_clos.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)

    suite = load_suite("koibuchi2012-clos-traffic")
    named = sorted(i.fields["network"] for i in suite.instances)
    expected = sorted(f"instances/networks/myrinet-clos/{mc.file_stem(w, v, 1)}.json" for w in mc.WIRINGS for v in mc.VARIANTS)
    assert named == expected
    for wiring in mc.WIRINGS:
        for variant in mc.VARIANTS:
            shipped = json.loads((ROOT / "instances" / "networks" / "myrinet-clos" /
                                  f"{mc.file_stem(wiring, variant, 1)}.json").read_text())
            again = json.loads(json.dumps(script.document(wiring, variant, 1)))
            shipped.pop("hopbench"), again.pop("hopbench")
            assert shipped == again, (wiring, variant)
            assert verify_document(shipped).valid
