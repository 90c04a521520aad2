"""The host-switch evaluation: ORP's published sample values, and networkx as an independent engine."""
from __future__ import annotations

import math
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from hopbench.harness.errors import InvalidSolution
from hopbench.harness.problems.hostswitch import golf_file
from hopbench.harness.problems.hostswitch._kernel import switch_sums
from hopbench.harness.problems.hostswitch.problem import HostSwitchProblem, from_sums, padded_table

DATA = Path(__file__).resolve().parents[3] / "data" / "graphgolf"


def networkx_metrics(counts: np.ndarray, links: np.ndarray) -> tuple[float, int, int]:
    """(h-diameter, total over unordered host pairs, unreachable pairs) by plain BFS on the full graph."""
    m = len(counts)
    g = nx.MultiGraph()
    g.add_nodes_from(range(m))
    g.add_edges_from((int(a), int(b)) for a, b in links)
    host = m
    hosts = []
    for s, c in enumerate(counts):
        for _ in range(int(c)):
            g.add_edge(host, s)
            hosts.append(host)
            host += 1
    total, far, missing = 0, 0, 0
    for i, h in enumerate(hosts):
        dist = nx.single_source_shortest_path_length(g, h)
        for other in hosts[i + 1:]:
            if other in dist:
                total += dist[other]
                far = max(far, dist[other])
            else:
                missing += 1
    return (math.inf if missing else float(far)), total, missing


@pytest.mark.parametrize("name, diameter, total, pairs", [
    # mnakao/ORP @ ba463f7c: sample/graph/ASPL.txt (ORP's own evaluation of its sample graphs)
    ("orp_h80s40r6.edges", 7, 14864, 3160), ("orp_h432s120r12.edges", 6, 416585, 93096)])
def test_orp_sample_graphs(name, diameter, total, pairs):
    n, r, counts, links = golf_file.read_file(DATA / name)
    ev = HostSwitchProblem(n, r).evaluate(counts, links)
    assert (ev.h_diameter, ev.total) == (diameter, total)
    assert ev.h_aspl == pytest.approx(total / pairs, abs=1e-12)
    assert networkx_metrics(counts, links)[:2] == (diameter, total)


def random_graph(rng: np.random.Generator, m: int, n: int, r: int, links: int) -> tuple[np.ndarray, np.ndarray]:
    """Hosts spread at random, random links within the free ports (loops and parallel links allowed)."""
    counts = np.bincount(rng.integers(0, m, n), minlength=m)
    counts = np.minimum(counts, r)
    free = (r - counts).astype(np.int64)
    out = []
    for _ in range(links):
        ok = np.flatnonzero(free > 0)
        if len(ok) < 1:
            break
        a, b = rng.choice(ok, 2)
        if a == b and free[a] < 2:
            continue
        free[a] -= 1
        free[b] -= 1
        out.append((a, b))
    return counts, np.array(out, dtype=np.int64).reshape(-1, 2)


@pytest.mark.parametrize("seed", range(8))
def test_against_networkx_on_random_graphs(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 40))
    r = int(rng.integers(3, 9))
    counts, links = random_graph(rng, m, int(rng.integers(2, 3 * m)), r, int(rng.integers(m // 2, 3 * m)))
    n = int(counts.sum())
    if n < 2:
        return
    nbr, deg = padded_table(m, links)
    # a one-word workspace splits the sources into blocks of 64: the blocks' sums must add up
    for words in (1, 2):
        A, B, P = (np.zeros((m, words), np.uint64), np.zeros((m, words), np.uint64), np.zeros((16, words), np.uint64))
        out = np.zeros(3, np.int64)
        switch_sums(nbr, deg, counts, A, B, P, out)
        ev = from_sums(HostSwitchProblem(n, r, objective="h_aspl"), counts, len(links), *map(int, out))
        diameter, total, missing = networkx_metrics(counts, links)
        assert ev.unreachable == missing
        assert ev.h_diameter == diameter
        if not missing:
            assert ev.total == total
            assert ev.h_aspl == pytest.approx(total / (n * (n - 1) / 2), abs=1e-12)


def test_sources_in_several_blocks():
    # 150 switches on a path with a host each, in blocks of 64 sources
    m = 150
    links = np.array([(i, i + 1) for i in range(m - 1)], dtype=np.int64)
    counts = np.ones(m, dtype=np.int64)
    nbr, deg = padded_table(m, links)
    A, B, P = np.zeros((m, 1), np.uint64), np.zeros((m, 1), np.uint64), np.zeros((16, 1), np.uint64)
    out = np.zeros(3, np.int64)
    switch_sums(nbr, deg, counts, A, B, P, out)
    ev = from_sums(HostSwitchProblem(m, 3), counts, len(links), *map(int, out))
    # hosts i < j are j - i + 2 apart
    assert ev.total == sum((j - i + 2) for i in range(m) for j in range(i + 1, m))
    assert ev.h_diameter == m + 1


def test_rules():
    p = HostSwitchProblem(6, 4)
    ok = (np.array([3, 3]), np.array([[0, 1]]))
    assert p.evaluate(*ok).h_diameter == 3
    with pytest.raises(InvalidSolution, match="ports"):
        p.evaluate(np.array([4, 2]), np.array([[0, 1]]))
    with pytest.raises(InvalidSolution, match="hosts"):
        p.evaluate(np.array([3, 2]), np.array([[0, 1]]))
    with pytest.raises(InvalidSolution, match="outside"):
        p.evaluate(np.array([3, 3]), np.array([[0, 2]]))
    with pytest.raises(InvalidSolution, match="switches"):
        HostSwitchProblem(6, 4, switches=3).evaluate(*ok)
    disconnected = p.evaluate(np.array([2, 2, 2]), np.array([[0, 1]]))
    assert math.isinf(disconnected.objective) and disconnected.unreachable == 8
