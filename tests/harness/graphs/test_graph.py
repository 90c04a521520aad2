import numpy as np
import pytest

from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph


def test_edges_are_canonical_sorted_and_unique():
    g = Graph(4, [(3, 0), (1, 2), (0, 3), (2, 1), (0, 1)])
    assert g.edges.tolist() == [[0, 1], [0, 3], [1, 2]]
    assert g.edges.dtype == np.int32
    assert g.degree.tolist() == [2, 2, 1, 1]


def test_csr_lists_every_neighbour_once():
    g = Graph(5, [(0, 1), (0, 4), (1, 2), (3, 4)])
    indptr, indices = g.csr
    nb = {v: sorted(indices[indptr[v]:indptr[v + 1]].tolist()) for v in range(5)}
    assert nb == {0: [1, 4], 1: [0, 2], 2: [1], 3: [4], 4: [0, 3]}


def test_has_edges_in_either_orientation():
    g = Graph(4, [(0, 1), (2, 3)])
    assert g.has_edges(np.array([[1, 0], [0, 2], [3, 2]])).tolist() == [True, False, True]
    assert not Graph(3).has_edge(0, 1)


@pytest.mark.parametrize("edges, fragment", [
    ([(0, 5)], "outside 0..3"),
    ([(-1, 2)], "outside 0..3"),
    ([(2, 2)], "self-loop"),
])
def test_bad_edges_are_rejected(edges, fragment):
    with pytest.raises(HopbenchError, match=fragment):
        Graph(4, edges)


def test_duplicates_rejected_only_when_asked():
    assert Graph(3, [(0, 1), (1, 0)]).m == 1
    with pytest.raises(HopbenchError, match="more than once"):
        Graph(3, [(0, 1), (1, 0)], dedupe=False)


def test_with_and_without_edges():
    g = Graph(4, [(0, 1)])
    h = g.with_edges([[2, 3], [1, 0]])
    assert h.m == 2 and g.m == 1
    assert h.without_edges(np.array([True, False])).edges.tolist() == [[2, 3]]
    assert h == Graph(4, [(3, 2), (0, 1)])
