"""The uniform-traffic channel load of minimal routing (:mod:`hopbench.harness.engine.channel_load`), against the
traffic layer's table-driven loads (:func:`hopbench.harness.traffic.bounds.channel_loads` on the ``hop-vc``
routing: every minimal next hop, evenly) and a plain-Python count over networkx's shortest paths."""
from __future__ import annotations

import math
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

from hopbench.harness.engine.channel_load import channel_loads_uniform_min, max_channel_load, throughput_bound
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec as build_topology


def python_loads(g: Graph) -> dict[tuple[int, int], Fraction]:
    """Exact loads: per destination, flow pushed from the farthest switches inwards (Fractions, networkx BFS)."""
    G = g.to_networkx()
    n = g.n
    load: dict[tuple[int, int], Fraction] = {}
    for t in range(n):
        dist = nx.single_source_shortest_path_length(G, t)
        flow = {v: Fraction(1, n - 1) if v != t else Fraction(0) for v in range(n)}
        for v in sorted(dist, key=lambda x: -dist[x]):
            if v == t:
                continue
            nxt = [w for w in G.neighbors(v) if dist[w] == dist[v] - 1]
            for w in nxt:
                part = flow[v] / len(nxt)
                load[(v, w)] = load.get((v, w), Fraction(0)) + part
                flow[w] += part
    return load


GRAPHS = ["ring:9", "mesh:4x3", "torus:4x4", "hypercube:4", "dlnr:32:2:3"]


@pytest.mark.parametrize("spec", GRAPHS)
def test_loads_equal_the_exact_count(spec):
    g = build_topology(spec)
    got = channel_loads_uniform_min(g)
    indptr, indices = g.csr
    exact = python_loads(g)
    for v in range(g.n):
        for k in range(indptr[v], indptr[v + 1]):
            assert got[k] == pytest.approx(float(exact.get((v, int(indices[k])), 0)), rel=1e-12, abs=1e-15)
    assert max_channel_load(g) == pytest.approx(float(max(exact.values())), rel=1e-12)


@pytest.mark.parametrize("spec", GRAPHS)
def test_loads_equal_the_traffic_layers_table_driven_loads(spec):
    from hopbench.harness.traffic.bounds import channel_loads, demand_for
    from hopbench.harness.traffic.routing import hop_vc

    g = build_topology(spec)
    diameter = int(max(max(d.values()) for _, d in nx.all_pairs_shortest_path_length(g.to_networkx())))
    table = channel_loads(hop_vc(g, num_vcs=max(diameter, 1)), g, demand_for("uniform", g))
    np.testing.assert_allclose(channel_loads_uniform_min(g), table, rtol=1e-10, atol=1e-14)


def test_a_ring_by_hand():
    # ring of 5: destinations 1 and 2 hops either way; the busiest channel carries (1 + 2) / 4 = 0.75
    g = build_topology("ring:5")
    assert max_channel_load(g) == pytest.approx(0.75)
    assert throughput_bound(g) == pytest.approx(4 / 3)


def test_disconnected_and_tiny_graphs():
    g = Graph(4, [(0, 1), (2, 3)])
    assert math.isinf(max_channel_load(g)) and throughput_bound(g) == 0.0
    with pytest.raises(ValueError, match="disconnected"):
        channel_loads_uniform_min(g)
    assert max_channel_load(Graph(1, [])) == 0.0


@pytest.mark.parametrize("spec", ["ring:9", "torus:4x4", "dlnr:32:2:3", "mesh:4x3"])
def test_a_candidate_link_scores_as_the_graph_with_it(spec):
    from hopbench.harness.engine.channel_load import peak_of_edges, score_added_links

    g = build_topology(spec)
    rng = np.random.default_rng(1)
    pairs = [(u, v) for u in range(g.n) for v in range(u + 1, g.n) if not g.has_edge(u, v)]
    pick = [pairs[i] for i in rng.choice(len(pairs), size=8, replace=False)]
    cu, cv = np.array([p[0] for p in pick]), np.array([p[1] for p in pick])
    peaks, totals, unreachable, squares = score_added_links(g, cu, cv)
    for i, (u, v) in enumerate(pick):
        h = g.with_edges([(u, v)])
        d = dict(nx.all_pairs_shortest_path_length(h.to_networkx()))
        assert peaks[i] == pytest.approx(max_channel_load(h), rel=1e-12)
        assert squares[i] == pytest.approx(float((channel_loads_uniform_min(h) ** 2).sum()), rel=1e-12)
        assert totals[i] == sum(sum(x.values()) for x in d.values()) and unreachable[i] == 0
        assert peak_of_edges(h.n, h.edges) == (pytest.approx(max_channel_load(h), rel=1e-12), totals[i], 0)


def test_unreachable_pairs_are_counted():
    from hopbench.harness.engine.channel_load import peak_of_edges, score_added_links

    g = Graph(5, [(0, 1), (1, 2), (3, 4)])
    peak, total, unreachable = peak_of_edges(5, g.edges)
    assert math.isinf(peak) and unreachable == 12 and total == 2 * (1 + 2 + 1) + 2 * 1
    peaks, totals, unr, _ = score_added_links(g, np.array([2]), np.array([3]))
    assert unr[0] == 0 and math.isfinite(peaks[0]) and totals[0] == 2 * (1 + 2 + 3 + 4 + 1 + 2 + 3 + 1 + 2 + 1)


def test_a_measurement_past_the_work_cap_is_refused_in_one_line(monkeypatch):
    from hopbench.harness.errors import HopbenchError
    from hopbench.harness.problems.shortcut.problem import ShortcutProblem

    g = build_topology("torus:4x4")  # 16 switches x 64 directed channels = 1,024
    monkeypatch.setenv("HOPBENCH_MAX_CHANNEL_LOAD_WORK", "1000")
    with pytest.raises(HopbenchError, match="HOPBENCH_MAX_CHANNEL_LOAD_WORK") as refused:
        max_channel_load(g)
    assert "\n" not in str(refused.value)
    with pytest.raises(HopbenchError, match="channel load of 16 switches"):
        ShortcutProblem("torus:4x4", 6, 0, "channel-load")  # refused when the problem is made, before any solver
    ShortcutProblem("torus:4x4", 6, 0, "aspl")  # other objectives are not measured this way
    monkeypatch.setenv("HOPBENCH_MAX_CHANNEL_LOAD_WORK", "1024")
    assert max_channel_load(g) == pytest.approx(16 * (32 / 15) / 64)  # a torus is balanced: the mean load
