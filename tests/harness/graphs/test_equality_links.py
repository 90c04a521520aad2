"""EqualityLinks.edges() and shortcuts() fill one array: the same links, in the same order, as
stacking one block per link value and filtering out the ring."""
from __future__ import annotations

import numpy as np
import pytest

from hopbench.harness.graphs.equality import EqualityLinks
from tests.harness.equality_networks import random_network


def stacked_edges(net: EqualityLinks) -> np.ndarray:
    n = net.n
    even = np.arange(0, n, 2, dtype=np.int64)
    every = np.arange(n, dtype=np.int64)
    parts = [np.stack([even, (even + s) % n], axis=1) for s in net.odd_values]
    for s in net.bhops:
        src = every[: n // 2] if s == n // 2 else every
        parts.append(np.stack([src, (src + s) % n], axis=1))
    return np.concatenate(parts)


@pytest.mark.parametrize("seed", range(60))
def test_same_links_in_the_same_order(seed):
    rng = np.random.default_rng(seed)
    net = random_network(rng, n=4 if seed == 0 else None)
    if seed % 3 == 0 and net.n >= 8:  # make sure the diameter link N/2 is exercised
        net = EqualityLinks(net.n, net.ahops, sorted({*net.bhops, net.n // 2} - {0}) if (net.n // 2) % 2 == 0
                            else net.bhops)
    ref = stacked_edges(net)
    edges = net.edges()
    assert edges.dtype == np.int64 and np.array_equal(edges, ref)
    diff = (ref[:, 1] - ref[:, 0]) % net.n
    shortcuts = net.shortcuts()
    assert shortcuts.dtype == np.int64 and np.array_equal(shortcuts, ref[(diff != 1) & (diff != net.n - 1)])
    assert len(edges) == net.n * net.k // 2 and len(shortcuts) == net.n * (net.k - 2) // 2
