"""Fully dynamic distances: every update against a full recomputation from scratch."""
from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from hopbench.harness.engine.distances import _pair_histogram, distance_matrix
from hopbench.harness.engine.dynamic import DynamicDistances, addition_histogram_delta, addition_savings, histogram_summary
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec


def assert_exact(dd: DynamicDistances) -> None:
    g = dd.graph()
    ref = distance_matrix(g, dtype=dd.D.dtype)
    assert np.array_equal(ref, dd.D)
    assert np.array_equal(_pair_histogram(ref, dd.inf, dd.hist.shape[0] - 1), dd.hist)


def random_graph(seed: int, n_max: int = 40) -> Graph:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, n_max))
    p = float(rng.choice([0.5, 1.0, 2.0, 4.0])) * math.log(max(n, 2)) / n
    g = nx.gnp_random_graph(n, min(1.0, p), seed=seed)
    return Graph(n, np.array(list(g.edges()), dtype=np.int64).reshape(-1, 2))


@pytest.mark.parametrize("method", DynamicDistances.METHODS)
@pytest.mark.parametrize("seed", range(25))
def test_random_add_remove_sequences_stay_exact(seed, method):
    rng = np.random.default_rng(seed)
    g = random_graph(seed)
    dd = DynamicDistances(g)
    for _ in range(25):
        edges = dd.graph().edges
        if len(edges) and rng.random() < 0.6:
            u, v = edges[rng.integers(len(edges))]
            dd.remove_edge(u, v, method=method)
        else:
            u, v = rng.integers(g.n, size=2)
            if u == v or dd.has_edge(u, v):
                continue
            dd.add_edge(u, v)
        assert_exact(dd)


def test_sequences_cover_disconnected_graphs():
    # the property test must see removals that disconnect a graph
    dd = DynamicDistances(parse_spec("mesh:3x3"))
    dd.remove_edge(0, 1)
    dd.remove_edge(0, 3)
    assert dd.unreachable == 8 and math.isinf(dd.diameter)
    assert_exact(dd)
    dd.add_edge(0, 8)
    assert dd.unreachable == 0
    assert_exact(dd)


@pytest.mark.parametrize("method", DynamicDistances.METHODS)
def test_wide_distances_use_uint16(method):
    ring = parse_spec("ring:600")
    dd = DynamicDistances(ring.with_edges([(0, 300)]))
    assert dd.D.dtype == np.uint16 and dd.total < DynamicDistances(ring).total
    dd.remove_edge(0, 300, method=method)
    assert dd.diameter == 300.0
    dd.remove_edge(0, 1, method=method)
    assert dd.diameter == 599.0  # a path now
    assert_exact(dd)


@pytest.mark.parametrize("seed", range(8))
def test_addition_kernels_match_recomputation(seed):
    rng = np.random.default_rng(seed)
    chords = rng.integers(40, size=(6, 2))
    g = parse_spec("ring:40").with_edges(chords[chords[:, 0] != chords[:, 1]])
    dd = DynamicDistances(g)
    total, q, top, at_top = histogram_summary(dd.hist)
    assert q == 0
    for _ in range(10):
        x, y = map(int, rng.integers(40, size=2))
        if x == y or dd.has_edge(x, y):
            continue
        after = dd.copy()
        after.add_edge(x, y)
        saved, shortened = addition_savings(dd.D, x, y, top)
        assert total - saved == after.total
        assert after.hist[top] == at_top - shortened
        dh = np.zeros_like(dd.hist)
        addition_histogram_delta(dd.D, x, y, dd.inf, dh)
        assert np.array_equal(dd.hist + dh, after.hist)


def test_errors():
    dd = DynamicDistances(parse_spec("ring:6"))
    with pytest.raises(ValueError, match="not an edge"):
        dd.remove_edge(0, 3)
    with pytest.raises(ValueError, match="already an edge"):
        dd.add_edge(0, 1)
    with pytest.raises(ValueError, match="unknown removal method"):
        dd.remove_edge(0, 1, method="magic")
    with pytest.raises(ValueError, match="max_distance"):
        DynamicDistances(parse_spec("ring:10"), max_distance=3)
