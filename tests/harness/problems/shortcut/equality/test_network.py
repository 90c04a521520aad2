"""EqualityNetwork: parsing into the problem layer's class, a and d by one BFS against the all-pairs
engine, vertex-transitivity, the Moore order and MB%, and ``hopbench equality evaluate``."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from hopbench.harness.engine.distances import bfs_distances, summary
from hopbench.harness.graphs import equality as notation
from hopbench.harness.problems.shortcut import equality as eq
from tests.harness.equality_networks import random_network


def test_parse_gives_an_equality_network():
    net = eq.parse("N14K6[-1,1,3,9](4)")
    assert type(net) is eq.EqualityNetwork
    assert (net.n, net.k, net.ahops, net.bhops, net.p) == (14, 6, (-1, 1, 3, 9), (4,), None)
    assert eq.parse(net) is net and eq.parse(net.notation()) == net
    links = notation.parse("N14K6[-1,1,3,9](4)")
    assert eq.parse(links) == net == eq.EqualityNetwork.from_links(links)
    assert type(eq.parse("E369")) is eq.EqualityNetwork


# --------------------------------------------------------------------------- evaluation


@pytest.mark.parametrize("seed", range(60))
def test_one_bfs_matches_the_all_pairs_engine(seed):
    net = random_network(np.random.default_rng(100 + seed), cls=eq.EqualityNetwork)
    m = net.metrics()
    s = summary(net.graph())
    assert m.connected == s.connected
    if s.connected:
        assert m.diameter == s.diameter
        assert m.total * net.n == 2 * s.total  # the same distance sum seen from every router
        assert math.isclose(m.aspl, s.aspl, rel_tol=1e-12)


def test_metrics_and_distances_agree_with_the_plain_bfs():
    rng = np.random.default_rng(3)
    for n in (6, 128, 130):
        net = random_network(rng, n, cls=eq.EqualityNetwork)
        ref = eq.reference_distances(net)
        assert np.array_equal(ref, bfs_distances(net.graph(), 0))
        assert np.array_equal(eq.distances(n, net.odd_values, net.bhops), ref)
        m = net.metrics()
        assert m.diameter == ref.max() and m.total == ref.sum() and list(m.levels) == np.bincount(ref).tolist()
        assert eq.evaluate_links(n, net.odd_values, net.bhops, scratch=eq.scratch_buffers(n)) == m


def test_disconnected_network_is_reported_as_such():
    net = eq.EqualityNetwork(16, [-1, 1], [])  # the ring alone is connected ...
    assert net.metrics().diameter == 8
    odd_only = eq.EqualityNetwork(8, [-1, 1, 3, 5], [])  # ... and so is everything with the ring
    assert odd_only.metrics().connected


def test_even_and_odd_routers_see_the_same_distances():
    net = eq.parse("N30K7[-1,1,7,11,19](6)")
    g = net.graph()
    d0 = bfs_distances(g, 0)
    for i in (1, 2, 7, 12):
        di = bfs_distances(g, i)
        # Eq. 2: even i sees j - i, odd i sees i - j
        j = np.arange(net.n)
        rel = (j - i) % net.n if i % 2 == 0 else (i - j) % net.n
        assert np.array_equal(di, d0[rel])


# --------------------------------------------------------------------------- MB%


def test_moore_ratio_matches_table_2():
    assert round(eq.moore_ratio(2048, 28, 3), 2) == 9.66
    assert eq.moore_order(24, 2) == 577


def test_summary_of_the_papers_example():
    doc = eq.parse("N14K6[-1,1,3,9](4)").summary()
    assert (doc["K"], doc["d"], doc["bisection_links"], doc["moore_bound"], doc["links"]) == (6, 2, 18, 37, 42)
    assert math.isclose(doc["MB_percent"], 100 * 14 / 37) and "p" not in doc


# --------------------------------------------------------------------------- CLI


def test_bad_notation_on_the_command_line(cli):
    code, out, err = cli("equality", "evaluate", "N15K6[-1,1,3,9](4)")
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "even" in err


def test_cli_evaluate_json(cli):
    code, out, err = cli("equality", "evaluate", "n14k6[-1,1,3,9](4)", "--p", "3", "--json", "--check")
    assert code == 0, err
    doc = json.loads(out)
    for key in ("N", "K", "a", "d", "ad", "B_r", "MB_percent"):
        assert key in doc
    assert doc["K"] == 6 and doc["d"] == 2 and doc["check"]["agrees"] and doc["p"] == 3
