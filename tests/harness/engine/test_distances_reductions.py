"""The batch scoring kernels greedy solvers use: DistanceState.reductions and score_histograms."""
from __future__ import annotations

import numpy as np
import pytest

from hopbench.harness.engine import distances as metrics
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec


def all_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(n, k=1)
    return i.astype(np.int64), j.astype(np.int64)


def histogram_after(g: Graph, x: int, y: int, bins: int) -> np.ndarray:
    """Pair-distance histogram of g + x--y by full recomputation (last bin: unreachable pairs)."""
    h = g.with_edges([[x, y]]) if x != y else g
    D = metrics.distance_matrix(h, dtype=np.uint16).astype(np.int64)
    iu = np.triu_indices(g.n, k=1)
    d = D[iu]
    inf = np.iinfo(np.uint16).max
    out = np.bincount(d[d != inf], minlength=bins)[:bins - 1]
    return np.r_[out, (d == inf).sum()]


@pytest.mark.parametrize("spec", ["ring:40", "torus:5x6", "mesh:4x7", "hypercube:5", "ring:300"])
def test_reductions_equal_exact_scores_for_every_pair(spec):
    g = parse_spec(spec)
    state = metrics.DistanceState.from_graph(g)
    rng = np.random.default_rng(1)
    xs, ys = all_pairs(g.n)  # many candidates per endpoint: the table path
    if g.n > 100:  # keep the exact reference cheap: every pair of three endpoints
        keep = np.isin(xs, [0, 7, g.n // 2])
        xs, ys = xs[keep], ys[keep]
    for _ in range(3):
        diam = int(state.diameter)
        saved, shortened = state.reductions(xs, ys, level=diam)
        scores = state.score(xs, ys)
        assert np.array_equal(state.total - saved, scores.total)
        # shortened pairs at the diameter: the diameter survives iff some remain
        assert np.array_equal(state.hist[diam] - shortened > 0, scores.diameter == diam)
        # a few candidates alone: the dense path gives the same numbers
        pick = rng.choice(xs.size, size=3, replace=False)
        s2, l2 = state.reductions(ys[pick], xs[pick], level=diam)
        assert np.array_equal(s2, saved[pick]) and np.array_equal(l2, shortened[pick])
        state.add_edge(int(xs[pick[0]]), int(ys[pick[0]]))


def test_reductions_count_pairs_at_a_level_exactly():
    g = parse_spec("torus:6x6")
    state = metrics.DistanceState.from_graph(g)
    xs, ys = all_pairs(g.n)
    D = metrics.distance_matrix(g).astype(np.int64)
    iu = np.triu_indices(g.n, k=1)
    for level in (2, 4, 6):
        _, shortened = state.reductions(xs, ys, level=level)
        for i in range(0, xs.size, 23):
            D2 = metrics.distance_matrix(g.with_edges([[xs[i], ys[i]]])).astype(np.int64)
            expected = int(((D[iu] == level) & (D2[iu] < level)).sum())
            assert shortened[i] == expected


def test_reductions_without_level_report_zero_counts_and_handle_odd_inputs():
    state = metrics.DistanceState.from_graph(parse_spec("ring:12"))
    # a self-pair and an existing edge save nothing
    saved, shortened = state.reductions(np.array([3, 0]), np.array([3, 1]))
    assert saved.tolist() == [0, 0] and shortened.tolist() == [0, 0]
    saved, _ = state.reductions(np.array([], dtype=np.int64), np.array([], dtype=np.int64))
    assert saved.shape == (0,)


def test_reductions_refuse_disconnected_graphs():
    state = metrics.DistanceState.from_graph(parse_spec("empty:5"))
    with pytest.raises(ValueError, match="connected"):
        state.reductions(np.array([0]), np.array([1]))


@pytest.mark.parametrize("spec", ["ring:30", "mesh:3x5", "empty:7"])
def test_score_histograms_equal_full_recomputation(spec):
    g = parse_spec(spec)
    g = g.with_edges([[0, 1]]) if spec.startswith("empty") else g  # disconnected, but not edgeless
    state = metrics.DistanceState.from_graph(g)
    xs, ys = all_pairs(g.n)
    hist = state.score_histograms(xs, ys)
    for i in range(0, xs.size, max(1, xs.size // 40)):
        ref = histogram_after(g, int(xs[i]), int(ys[i]), state.infbin + 1)
        assert np.array_equal(hist[i], ref)


def test_scoring_leaves_the_state_unchanged():
    state = metrics.DistanceState.from_graph(parse_spec("ring:30"))
    before = state.D.copy(), state.hist.copy(), state.total
    xs, ys = all_pairs(30)
    state.reductions(xs, ys, level=15)
    state.score_histograms(xs, ys)
    assert np.array_equal(state.D, before[0]) and np.array_equal(state.hist, before[1])
    assert state.total == before[2]
