"""The pure-numpy small-graph path against the numba engine: exactly the same sums on every graph."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from hopbench.harness.engine import distances
from hopbench.harness.engine.small import DistanceSummary, small_summary
from hopbench.harness.engine.summary import SMALL_N, summary
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec


def _padded(g: Graph) -> bool:
    """Whether small_summary takes its padded-table path (mean degree at least half the maximum)."""
    return g.m > 0 and g.max_degree * g.n <= 4 * g.m


def _gnp(rng: np.random.Generator, n: int, mean_degree: float) -> Graph:
    """G(n, p) with the given mean degree: from many components to well connected."""
    pairs = rng.integers(0, n, size=(int(rng.poisson(n * mean_degree / 2)) + 1, 2))
    return Graph(n, pairs[pairs[:, 0] != pairs[:, 1]])


def _regular(rng: np.random.Generator, n: int, degree: int) -> Graph:
    """A near-regular graph: ``degree`` random perfect matchings of a shuffled vertex list (repeats merged)."""
    edges = []
    for _ in range(degree):
        order = rng.permutation(n)
        edges.append(np.stack([order[: n // 2], order[n // 2: 2 * (n // 2)]], axis=1))
    return Graph(n, np.concatenate(edges)) if n > 1 else Graph(n)


def _with_isolated(rng: np.random.Generator, g: Graph, extra: int) -> Graph:
    """``g`` plus ``extra`` isolated vertices, everything renumbered at random."""
    relabel = rng.permutation(g.n + extra)
    return Graph(g.n + extra, relabel[g.edges])


def _disjoint(a: Graph, b: Graph) -> Graph:
    return Graph(a.n + b.n, np.concatenate([a.edges, b.edges + a.n]))


def _graphs(seed: int) -> list[Graph]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, SMALL_N))
    out = [_gnp(rng, n, float(rng.choice([0.5, 1.0, 2.0, 4.0, 8.0, 20.0]))),
           _regular(rng, n, int(rng.choice([1, 2, 3, 4, 6])))]
    half = max(1, n // 2)
    out.append(_disjoint(_regular(rng, half, 3), _gnp(rng, max(1, n - half), 3.0)))
    base = out[int(rng.integers(0, 2))]
    k = int(rng.integers(1, 20))
    if base.n + k < SMALL_N:
        out.append(_with_isolated(rng, base, k))
    return out


def _assert_same(g: Graph) -> None:
    ours = small_summary(g)
    ref = distances.summary(g)
    assert (ours.n, ours.total, ours.unreachable_pairs, ours.max_finite) == \
        (ref.n, ref.total, ref.unreachable_pairs, ref.max_finite), g
    assert ours.aspl == ref.aspl and ours.diameter == ref.diameter and ours.connected == ref.connected


@pytest.mark.parametrize("seed", range(40))
def test_random_graphs_match_the_numba_engine(seed):
    for g in _graphs(seed):
        _assert_same(g)


def test_the_random_graphs_cover_every_case():
    """The property test above must reach both code paths, disconnected graphs and isolated vertices."""
    graphs = [g for seed in range(40) for g in _graphs(seed)]
    assert {_padded(g) for g in graphs} == {True, False}
    assert {small_summary(g).connected for g in graphs if g.n > 1} == {True, False}
    assert any((g.degree == 0).any() and g.m > 0 and not _padded(g) for g in graphs)
    assert any((g.degree == 0).any() and _padded(g) for g in graphs)
    assert max(g.n for g in graphs) > 900 and min(g.n for g in graphs) < 50


@pytest.mark.parametrize("spec", ["ring:999", "ring:3", "mesh:5x7", "torus:16x16", "torus:31x31", "torus:2x3x4",
                                  "hypercube:9", "fhypercube:6", "dln:512:4", "hring:8x16", "empty:7",
                                  "fattree:8", "dragonfly:3", "slimfly:7"])
def test_topologies_match_the_numba_engine(spec):
    _assert_same(parse_spec(spec))


@pytest.mark.parametrize("n, edges", [(1, []), (2, []), (2, [(0, 1)]), (3, [(0, 1)]), (5, [(1, 3)]),
                                      (4, [(0, 1), (2, 3)]), (6, [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5)]),
                                      (64, [(i, i + 1) for i in range(63)]),
                                      (65, [(i, i + 1) for i in range(64)]),
                                      (130, [(0, i) for i in range(1, 129)]),  # a star and an isolated vertex
                                      (999, [(i, i + 1) for i in range(998)]),  # the longest path
                                      (40, [(i, j) for i in range(40) for j in range(i + 1, 40)])])
def test_edge_cases_match_the_numba_engine(n, edges):
    _assert_same(Graph(n, edges))


def test_known_values():
    s = small_summary(parse_spec("torus:16x16"))
    assert (s.diameter, s.total) == (16.0, 256 * 255 // 2 * s.aspl) and s.connected
    assert small_summary(Graph(1)) == DistanceSummary(n=1, total=0, unreachable_pairs=0, max_finite=0)
    assert small_summary(Graph(3, [(0, 1)])) == DistanceSummary(n=3, total=1, unreachable_pairs=2, max_finite=1)


def test_one_result_type_for_both_paths():
    assert distances.DistanceSummary is DistanceSummary
    assert isinstance(distances.summary(Graph(3, [(0, 1)])), DistanceSummary)


@pytest.mark.parametrize("n", [SMALL_N - 1, SMALL_N, SMALL_N + 37])
def test_the_dispatcher_agrees_on_both_sides_of_the_threshold(n):
    rng = np.random.default_rng(n)
    g = _regular(rng, n, 3)
    assert summary(g) == distances.summary(g)


def test_the_small_path_loads_no_numba():
    code = ("import sys; from hopbench.harness.engine.summary import summary; from hopbench.harness.graphs.topologies import parse_spec;"
            "s = summary(parse_spec('torus:16x16')); assert s.diameter == 16;"
            "print(sorted(m for m in ('numba', 'scipy', 'hopbench.harness.engine.distances') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("budget", [1, 64, 1000])
def test_gathers_in_row_chunks_give_the_same_sums(monkeypatch, budget):
    """A dense irregular graph is gathered in chunks of rows (here forced small); the sums do not change."""
    from hopbench.harness.engine import small

    monkeypatch.setattr(small, "_GATHER_WORDS", budget)
    rng = np.random.default_rng(budget)
    for seed in range(6):
        g = _graphs(seed)[0]
        hub = Graph(g.n + 1, np.concatenate([g.edges, [[g.n, v] for v in range(0, g.n, 2)]]))  # irregular
        for h in (g, hub):
            if not _padded(h):
                _assert_same(h)
    dense = _gnp(rng, 900, 100.0)
    dense = Graph(901, np.concatenate([dense.edges, [[900, v] for v in range(900)]]))
    assert not _padded(dense)
    _assert_same(dense)


def test_both_bit_counts_agree():
    """numpy < 2.0 (which pyproject allows) has no bitwise_count: the byte-table fallback counts the same."""
    from hopbench.harness.engine import small

    x = np.random.default_rng(0).integers(0, 2**63, size=(37, 5), dtype=np.int64).view(np.uint64)
    x[0, 0] = np.uint64(2**64 - 1)
    counts = np.empty(x.shape, np.uint8)
    expected = sum(bin(int(v)).count("1") for v in x.ravel())
    assert small._count_bits_table(x, counts) == expected
    if hasattr(np, "bitwise_count"):
        assert small._count_bits_native(x, counts) == expected
