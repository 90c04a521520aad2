"""Semicircle cuts and B_r: the closed form for Equality networks and the difference array for any
graph, both against brute force, and the B_r Table 3 prints for E804."""
from __future__ import annotations

import math

import numpy as np
import pytest

from hopbench.harness.problems.shortcut import equality as eq
from tests.harness.equality_networks import random_network


@pytest.mark.parametrize("seed", range(30))
def test_semicircle_cuts_against_brute_force(seed):
    net = random_network(np.random.default_rng(300 + seed), cls=eq.EqualityNetwork)
    g = net.graph()
    n, h = g.n, g.n // 2
    brute = []
    for i in range(n):
        inside = np.zeros(n, bool)
        inside[np.arange(i, i + h) % n] = True
        brute.append(int((inside[g.edges[:, 0]] != inside[g.edges[:, 1]]).sum()))
    assert eq.semicircle_cuts(g).tolist() == brute
    assert net.bisection_cut() == min(brute)
    assert math.isclose(net.bisection_ratio(), eq.bisection_ratio(g))


def test_bisection_ratio_of_e804_is_the_published_0_542():
    # Table 3 prints "(Br 0.542)" next to E804
    assert round(eq.published_network("E804").bisection_ratio(), 3) == 0.542
