import math

import networkx as nx
import pytest

from hopbench.harness.engine.distances import summary
from hopbench.harness.graphs.bounds import cerf_bound, lower_bounds, moore_bound
from hopbench.harness.graphs.graph import Graph


def test_petersen_graph_meets_both_bounds():
    g = nx.petersen_graph()
    s = summary(Graph(10, list(g.edges())))
    assert (s.diameter, s.aspl) == lower_bounds(10, 3) == (2, 5 / 3)


@pytest.mark.parametrize("n, d, diameter", [(2, 1, 1), (7, 2, 3), (8, 2, 4), (11, 3, 3), (1, 3, 0)])
def test_small_cases(n, d, diameter):
    assert moore_bound(n, d) == diameter


def test_impossible_degrees():
    assert lower_bounds(5, 1) == (math.inf, math.inf)
    assert lower_bounds(3, 0) == (math.inf, math.inf)


@pytest.mark.parametrize("seed", range(12))
def test_bounds_hold_for_random_graphs(seed):
    g = nx.random_regular_graph(3 + seed % 4, 40, seed=seed)
    s = summary(Graph(40, list(g.edges())))
    d = max(dict(g.degree()).values())
    assert s.diameter >= moore_bound(40, d)
    assert s.aspl >= cerf_bound(40, d) - 1e-12
