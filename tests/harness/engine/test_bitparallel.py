"""The level-by-level bit-parallel BFS over a padded neighbour table."""
from __future__ import annotations

import numpy as np
import pytest

from hopbench.harness.engine import bitparallel as bp
from hopbench.harness.engine.summary import summary
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec


def _random_graph(n: int, m: int, seed: int) -> Graph:
    rng = np.random.default_rng(seed)
    e = rng.integers(0, n, size=(m, 2))
    return Graph(n, e[e[:, 0] != e[:, 1]])


GRAPHS = [
    parse_spec("ring:9"), parse_spec("torus:8x8"), parse_spec("mesh:5x7"), parse_spec("empty:5"),
    _random_graph(70, 100, 1), _random_graph(200, 400, 2), _random_graph(300, 200, 3),  # the last: disconnected
    _random_graph(1030, 2600, 4),
]


@pytest.mark.parametrize("g", GRAPHS, ids=lambda g: f"n{g.n}m{g.m}")
@pytest.mark.parametrize("words", [1, 2, 3, 4, 5, 16])
def test_histogram_matches_the_engine(g, words):
    hist, unreached = bp.histogram(g.n, g.edges, words=words)
    s = summary(g)
    levels = np.arange(hist.size)
    assert hist[0] == g.n
    assert int((hist * levels).sum()) == 2 * s.total
    assert unreached == 2 * s.unreachable_pairs
    assert int(np.flatnonzero(hist)[-1]) == s.max_finite
    assert int(hist.sum()) + unreached == g.n * g.n


def test_sources_subset_and_padding():
    g = _random_graph(150, 400, 5)
    full, _ = bp.histogram(g.n, g.edges, words=4)
    part = np.zeros(g.n + 1, np.int64)
    nbr, deg = bp.padded_table(g.n, g.edges)
    bp.source_histogram(nbr, deg, 0, 70, 2, part)
    rest = np.zeros(g.n + 1, np.int64)
    bp.source_histogram(nbr, deg, 70, g.n, 1, rest)
    assert np.array_equal(part + rest, full)
    A = np.zeros((g.n, 2), np.uint64)
    assert bp.seed_sources(A, 10, 80) == 128 - 70
    assert bin(int(A[0, 1])).count("1") == 64 - 6  # sources 64..69 of the block are real, the rest padding


def test_expand_complete_is_the_last_level_check():
    g = parse_spec("ring:8")  # diameter 4
    nbr, deg = bp.padded_table(g.n, g.edges)
    A = np.zeros((g.n, 1), np.uint64)
    B = np.zeros_like(A)
    bp.seed_sources(A, 0, 8)
    for _ in range(3):
        assert not bp.expand_complete(nbr, deg, A, B)
        bp.expand(nbr, deg, A, B)
        A, B = B, A
    assert bp.expand_complete(nbr, deg, A, B)  # the fourth level reaches every pair
