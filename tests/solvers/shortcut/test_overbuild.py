"""Annealing's over-built start (hopbench.solvers.shortcut._overbuild): a symmetric graph on n + v vertices,
v of them deleted and their orphaned neighbours paired, then polished without symmetry."""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.shortcut import _overbuild


def golf(n, d):
    spec = f"empty:{n}"
    return ShortcutProblem(parse_spec(spec), d, n * d // 2, "golf", base_spec=spec)


@pytest.mark.parametrize("n, d, expected", [
    (4855, 15, (4856, 1214)),  # odd n, odd degree: no symmetric orbit has an even number of ports
    (1726, 30, (1727, 157)),   # 2 x 863: the automatic symmetry would keep 863 representatives
    (1025, 3, (1026, 57)),
    (9344, 10, None),          # has small orbits of its own
    (1024, 5, None),           # one word holds every source: left alone
    (1023, 3, None),
])
def test_plan_overbuilds_only_orders_without_a_small_symmetry(n, d, expected):
    assert _overbuild.plan(golf(n, d)) == expected


def test_plan_needs_the_order_degree_problem():
    p = ShortcutProblem(parse_spec("ring:4855"), 15, 4855 * 13 // 2, "golf", base_spec="ring:4855")
    assert _overbuild.plan(p) is None
    assert _overbuild.plan(ShortcutProblem(parse_spec("empty:4855"), 15, 100, "golf", base_spec="empty:4855")) is None


def test_delete_and_pair_keeps_the_degrees_and_gives_back_the_ports():
    rng = np.random.default_rng(3)
    g = nx.random_regular_graph(5, 60, seed=4)
    edges = np.array(g.edges, np.int64)
    victims = np.array([0, 17, 33])
    assert not any(g.has_edge(int(a), int(b)) for a in victims for b in victims)
    out = _overbuild.delete_and_pair(60, edges, victims, rng)
    h = nx.Graph()
    h.add_nodes_from(range(57))
    h.add_edges_from(map(tuple, out))
    assert h.number_of_edges() == out.shape[0]  # no repeated edge
    assert nx.number_of_selfloops(h) == 0 and out.min() >= 0 and out.max() == 56
    degrees = np.array([h.degree(v) for v in range(57)])
    assert degrees.max() == 5
    # 15 orphaned ports, paired: one stays free, unless the pairing got stuck on a forced repeat
    assert 57 * 5 - degrees.sum() in (1, 3)
    # the surviving edges keep their (relabelled) ends
    keep = np.setdiff1d(np.arange(60), victims)
    new = {int(v): i for i, v in enumerate(keep)}
    for a, b in g.edges:
        if a not in victims and b not in victims:
            assert h.has_edge(new[a], new[b])


def _solve(seed, evaluations=1500):
    return execute(solvers.create("annealing"), golf(1025, 3), seed=seed, budget=Budget(evaluations=evaluations))


def test_annealing_starts_from_the_overbuilt_graph_and_is_reproducible():
    out = _solve(1)
    extra = out.solution.extra
    assert extra["start"] == "overbuild" and extra["overbuilt"] == 1026 and extra["overbuilt_symmetry"] == 57
    assert extra["symmetry"] == 1  # the polish runs without symmetry
    ev = out.solution.evaluation  # execute re-validated and re-measured it
    assert ev.unreachable_pairs == 0
    # deleting one vertex and pairing two of its three neighbours: one port stays free
    assert out.solution.shortcuts.shape[0] == (1025 * 3) // 2
    # the polish never makes the repaired graph worse
    repaired = extra["repaired_diameter"] + extra["repaired_total"] / (1025 * 1024 / 2) / (extra["repaired_diameter"] + 1)
    assert ev.objective <= repaired + 1e-12
    again = _solve(1)
    assert np.array_equal(again.solution.shortcuts, out.solution.shortcuts)
    assert out.evaluations <= 1500


def test_overbuild_off_keeps_the_random_start():
    out = execute(solvers.create("annealing", overbuild="off"), golf(1025, 3), seed=1, budget=Budget(evaluations=200))
    assert out.solution.extra["start"] == "random" and "overbuilt" not in out.solution.extra


def test_mend_brings_far_pairs_in_by_degree_keeping_swaps():
    from hopbench.harness.engine.distances import summary
    from hopbench.harness.graphs.graph import Graph
    from hopbench.solvers.contract.budget import Reporter

    g = nx.random_regular_graph(4, 120, seed=2)
    edges = np.array(g.edges, np.int64)
    s = summary(Graph(120, edges))
    target = s.max_finite - 1  # every pair at the diameter is "far"
    report = Reporter()
    out, info = _overbuild.mend(120, edges, target, np.random.default_rng(1), report)
    assert info["far_before"] > 0 and info["far_after"] < info["far_before"] and info["swaps"] >= 1
    assert report.evaluations == info["evaluations"] <= _overbuild.MEND_EVALUATIONS
    h = nx.Graph(list(map(tuple, out)))
    assert h.number_of_edges() == edges.shape[0] and nx.number_of_selfloops(h) == 0
    assert all(d == 4 for _, d in h.degree())  # degrees kept
    far = sum(1 for u, row in nx.all_pairs_shortest_path_length(h) for v, k in row.items() if u < v and k > target)
    assert far == info["far_after"]  # counted independently
