import numpy as np
import pytest

from hopbench.harness.analysis.fault_tolerance import _fails, fault_tolerance
from hopbench.harness.engine.distances import summary
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec


def test_ring_fails_at_the_first_removal():
    ft = fault_tolerance(parse_spec("ring:64"), samples=5, seed=1)
    assert ft.mean_percent == 1.0


def test_seeded_and_sample_count():
    g = parse_spec("torus:8x8")
    a = fault_tolerance(g, samples=10, seed=3)
    b = fault_tolerance(g, samples=10, seed=3)
    assert np.array_equal(a.samples, b.samples) and len(a.samples) == 10


def test_binary_search_equals_a_linear_scan():
    g = parse_spec("torus:6x6")
    limit = summary(g).max_finite + 2
    rng = np.random.default_rng(11)
    ft = fault_tolerance(g, samples=8, seed=11)
    for found in ft.samples:
        order = rng.permutation(g.m)
        first = next(p for p in range(1, 101) if _fails(g, order, p, limit))
        assert found == first


def test_better_connected_graphs_tolerate_more():
    assert fault_tolerance(parse_spec("hypercube:7"), samples=10).mean_percent > \
        fault_tolerance(parse_spec("torus:8x16"), samples=10).mean_percent


def test_rejects_disconnected_graph_and_zero_samples():
    with pytest.raises(HopbenchError, match="connected"):
        fault_tolerance(Graph(4, [(0, 1)]))
    with pytest.raises(HopbenchError, match="at least one sample"):
        fault_tolerance(parse_spec("ring:8"), samples=0)
