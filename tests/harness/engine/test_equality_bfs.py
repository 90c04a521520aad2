"""The bit-parallel Equality BFS against a plain queue BFS and the general distance engine, including
sizes around the 64-bit word boundaries, and the reuse of scratch buffers across networks."""
from __future__ import annotations

import numpy as np
import pytest

from hopbench.harness.engine.distances import bfs_distances
from hopbench.harness.engine.equality_bfs import bfs_from_router_0, distances, queue_distances, scratch_buffers
from tests.harness.equality_networks import random_network


@pytest.mark.parametrize("n", [4, 6, 126, 128, 130, 254, 256, 258])
def test_bitset_edges_around_word_boundaries(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        net = random_network(rng, n)
        total, diameter, levels = bfs_from_router_0(n, net.odd_values, net.bhops)
        d0 = bfs_distances(net.graph(), 0)
        ref = queue_distances(n, net.odd_values, net.bhops)
        assert np.array_equal(d0, ref)
        assert np.array_equal(distances(n, net.odd_values, net.bhops), ref)
        if (d0 >= 0).all():
            assert diameter == d0.max() and total == d0.sum()
            assert levels[:diameter + 1].tolist() == np.bincount(d0).tolist() and not levels[diameter + 1:].any()


def test_scratch_buffers_can_be_reused_across_networks():
    rng = np.random.default_rng(7)
    scratch = scratch_buffers(130)
    for _ in range(10):
        net = random_network(rng, 130)
        fresh = bfs_from_router_0(130, net.odd_values, net.bhops)
        reused = bfs_from_router_0(130, net.odd_values, net.bhops, scratch=scratch)
        assert fresh[:2] == reused[:2] and np.array_equal(fresh[2], reused[2])
