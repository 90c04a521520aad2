"""The distance engine against scipy, and the incremental kernels against full recomputation."""
import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

from hopbench.harness.engine import distances as metrics
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec


def scipy_distances(g: Graph) -> np.ndarray:
    a = sp.coo_matrix((np.ones(g.m), (g.edges[:, 0], g.edges[:, 1])), shape=(g.n, g.n))
    return shortest_path(a.tocsr(), directed=False, unweighted=True)


def scipy_summary(g: Graph) -> tuple[float, float]:
    d = scipy_distances(g)
    iu = np.triu_indices(g.n, 1)
    vals = d[iu]
    if np.isinf(vals).any():
        return math.inf, math.inf
    return float(vals.max()) if vals.size else 0.0, float(vals.mean()) if vals.size else 0.0


def random_graph(seed: int) -> Graph:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    # edge densities from well below to above the connectivity threshold
    p = float(rng.choice([0.3, 1.0, 2.0, 4.0])) * math.log(n) / n
    g = nx.gnp_random_graph(n, min(1.0, p), seed=seed)
    return Graph(n, np.array(list(g.edges()), dtype=np.int64).reshape(-1, 2))


@pytest.mark.parametrize("seed", range(60))
def test_summary_agrees_with_scipy_on_random_graphs(seed):
    g = random_graph(seed)
    ours = metrics.summary(g)
    d, a = scipy_summary(g)
    assert ours.diameter == d
    if math.isinf(a):
        assert math.isinf(ours.aspl) and ours.unreachable_pairs > 0
    else:
        assert abs(ours.aspl - a) < 1e-9


def test_disconnected_cases_are_covered():
    # the property test above must exercise both kinds of graph
    kinds = {metrics.summary(random_graph(s)).connected for s in range(60)}
    assert kinds == {True, False}


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("words", [1, 2, 8])
def test_distance_matrix_equals_scipy(seed, words):
    g = random_graph(1000 + seed)
    D = metrics.distance_matrix(g, words=words)
    ref = scipy_distances(g)
    inf = np.iinfo(D.dtype).max
    assert np.array_equal(D == inf, np.isinf(ref))
    finite = ~np.isinf(ref)
    assert np.array_equal(D[finite].astype(float), ref[finite])


def test_uint16_matrix_for_long_paths():
    g = parse_spec("ring:700")
    D = metrics.distance_matrix(g)
    assert D.dtype == np.uint16 and D.max() == 350
    assert np.array_equal(D.astype(float), scipy_distances(g))


def wide_graph(seed: int) -> Graph:
    """Long cycles or paths with a few chords, and sometimes vertices left apart: up to 2,000 vertices,
    diameters of 90 to 1,500, on both sides of the dispatch (WIDE_MIN_VERTICES, WIDE_ECCENTRICITY), so
    both all-sources kernels and the choice between them are met."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(100, 2000))
    order = rng.permutation(n)[:n if seed % 3 == 0 else int(rng.integers(n // 2, n))]
    edges = [(int(a), int(b)) for a, b in zip(order[:-1], order[1:])]
    if seed % 2:
        edges.append((int(order[-1]), int(order[0])))
    for _ in range(int(rng.integers(0, 4))):
        edges.append(tuple(int(v) for v in rng.choice(order, 2, replace=False)))
    return Graph(n, np.array(edges, dtype=np.int64))


@pytest.mark.parametrize("seed", range(24))
def test_both_all_sources_kernels_agree_with_scipy_on_graphs_of_large_diameter(seed):
    g = wide_graph(seed)
    ref = scipy_distances(g)
    finite = ~np.isinf(ref)
    indptr, indices = metrics._csr(g)
    inf = np.iinfo(np.uint16).max
    kernels = {"bit-parallel": lambda out: metrics._bitbfs(indptr, indices, g.n, 2, out, inf, True),
               "queue": lambda out: metrics._queue_bfs(indptr, indices, g.n, out, inf, True, 7)}
    for name, kernel in kernels.items():
        D = np.empty((g.n, g.n), np.uint16)
        total, diam, reached = kernel(D)
        assert np.array_equal(D == inf, ~finite), name
        assert np.array_equal(D[finite].astype(float), ref[finite]), name
        assert (total, diam, reached) == (ref[finite].sum(), ref[finite].max(), finite.sum()), name
    ours = metrics.summary(g)
    d, a = scipy_summary(g)
    assert ours.diameter == d and (math.isinf(a) and math.isinf(ours.aspl) or abs(ours.aspl - a) < 1e-9)
    assert ours.total == ref[finite].sum() // 2


def test_wide_graphs_cover_both_kernels_and_both_kinds():
    # the test above must see graphs on each side of the dispatch, connected and not
    seen = set()
    for seed in range(24):
        g = wide_graph(seed)
        indptr, indices = metrics._csr(g)
        wide = metrics._is_wide(g, metrics._probe_depth(indptr, indices, g.n))
        seen.add((bool(wide), metrics.summary(g).connected))
    assert seen == {(True, True), (True, False), (False, True), (False, False)}


@pytest.mark.parametrize("seed", range(6))
def test_depth_probe_looks_into_every_component(seed):
    g = wide_graph(seed)
    nxg = nx.Graph()
    nxg.add_nodes_from(range(g.n))
    nxg.add_edges_from(map(tuple, g.edges))
    want = max(nx.eccentricity(nxg.subgraph(c), min(c)) for c in nx.connected_components(nxg))
    assert metrics._probe_depth(*metrics._csr(g), g.n) == want
    # vertex 0 alone and a long path beside it: the path decides the kernel (vertex 0's own BFS ends
    # at once, which sent this graph to the bit-parallel kernel, 3.6x slower on 10,000 vertices)
    apart = Graph(1500, np.array([(v, v + 1) for v in range(1, 1499)], dtype=np.int64))
    assert metrics._is_wide(apart, metrics._probe_depth(*metrics._csr(apart), apart.n))


def test_summary_estimate_follows_the_kernel_and_the_depth():
    # a ring of 2,048 vertices takes the queue BFS: n (n + 2m) steps, however its words would fill
    ring = parse_spec("ring:2048")
    assert metrics.summary_seconds_estimate(ring) == pytest.approx(
        metrics.SUMMARY_SECONDS_PER_QUEUE_STEP * 2048 * (2048 + 2 * 2048))
    # a 30 x 30 mesh (900 vertices) stays bit-parallel but has 58 levels from vertex 0, where a random
    # graph of its mean degree would have about 10: the estimate takes twice the eccentricity
    mesh = parse_spec("mesh:30x30")
    words, mean_degree = (900 + 63) // 64, 2 * mesh.m / 900
    assert metrics.summary_seconds_estimate(mesh) == pytest.approx(
        metrics.SUMMARY_SECONDS_PER_WORD_STEP * 900 * words * mean_degree * (2 * 58 + 1))
    # an edgeless graph costs nothing
    assert metrics.summary_seconds_estimate(parse_spec("empty:5000")) == 0.0


def test_single_source_bfs():
    g = parse_spec("mesh:3x3")
    assert metrics.bfs_distances(g, 0).tolist() == [0, 1, 2, 1, 2, 3, 2, 3, 4]
    assert metrics.bfs_distances(parse_spec("empty:3"), 1).tolist() == [-1, 0, -1]


def test_single_vertex_and_single_edge():
    s = metrics.summary(Graph(1))
    assert (s.diameter, s.aspl) == (0.0, 0.0)
    s = metrics.summary(Graph(2, [(0, 1)]))
    assert (s.diameter, s.aspl) == (1.0, 1.0)


@pytest.mark.parametrize("spec, dtype", [
    ("torus:6x6", np.uint8),
    ("ring:120", np.uint8),
    ("ring:600", np.uint16),
    ("empty:30", np.uint8),      # disconnected: distances can grow to n-1
    ("empty:300", np.uint16),
])
def test_incremental_add_edge_equals_full_recomputation(spec, dtype):
    g = parse_spec(spec)
    state = metrics.DistanceState.from_graph(g)
    assert state.D.dtype == dtype
    rng = np.random.default_rng(7)
    for _ in range(25):
        x, y = (int(v) for v in rng.choice(g.n, size=2, replace=False))
        state.add_edge(x, y)
        g = g.with_edges([[x, y]])
        full = metrics.summary(g)
        assert np.array_equal(state.D, metrics.distance_matrix(g, dtype=dtype))
        assert state.total == full.total and state.unreachable == full.unreachable_pairs
        assert state.diameter == full.diameter


@pytest.mark.parametrize("spec", ["torus:8x8", "ring:400", "mesh:5x7", "empty:20"])
def test_candidate_scores_equal_full_recomputation(spec):
    g = parse_spec(spec)
    rng = np.random.default_rng(3)
    state = metrics.DistanceState.from_graph(g)
    for step in range(4):
        xs = rng.integers(0, g.n, 40)
        ys = rng.integers(0, g.n, 40)
        scores = state.score(xs, ys)
        for i in range(40):
            h = g.with_edges([[xs[i], ys[i]]]) if xs[i] != ys[i] else g
            s = metrics.summary(h)
            assert scores.total[i] == s.total
            assert scores.unreachable[i] == s.unreachable_pairs
            assert scores.diameter[i] == s.max_finite
            assert scores.aspl()[i] == pytest.approx(s.aspl) if s.connected else math.isinf(scores.aspl()[i])
        x, y = int(xs[0]), int(ys[0])
        if x != y:
            state.add_edge(x, y)
            g = g.with_edges([[x, y]])


def test_scoring_does_not_modify_the_state():
    state = metrics.DistanceState.from_graph(parse_spec("ring:50"))
    before = state.D.copy(), state.hist.copy()
    state.score(np.array([0, 3]), np.array([25, 40]))
    assert np.array_equal(state.D, before[0]) and np.array_equal(state.hist, before[1])


@pytest.mark.parametrize("n", [0, 1, 2, 5, 63, 64, 65, 130, 257])
def test_pair_histogram_against_numpy(n):
    # row blocks (64) fewer than, equal to and more than the vertices; unreachable pairs in the last bin
    from hopbench.harness.engine.distances import _pair_histogram

    rng = np.random.default_rng(n)
    inf = np.iinfo(np.uint16).max
    D = rng.integers(0, 40, size=(n, n)).astype(np.uint16)
    D[rng.random((n, n)) < 0.2] = inf
    infbin = 41
    upper = D[np.triu_indices(n, 1)].astype(np.int64)
    want = np.bincount(np.where(upper == inf, infbin, upper), minlength=infbin + 1)
    assert np.array_equal(_pair_histogram(D, inf, infbin), want)


def test_dense_matrix_refusal_checks_the_cap_and_the_16_bit_entries(monkeypatch):
    from hopbench.harness.engine.distances import dense_matrix_refusal

    assert dense_matrix_refusal(10_000) == ""  # graph golf's largest pair here: 200 MB
    why = dense_matrix_refusal(40_000)
    assert "2.98 GiB at n = 40,000" in why and "HOPBENCH_MAX_DENSE_MATRIX_BYTES" in why and "\n" not in why
    assert dense_matrix_refusal(20_000, 3.0)  # three matrices of 0.8 GB each
    monkeypatch.setenv("HOPBENCH_MAX_DENSE_MATRIX_BYTES", str(4 * 2**30))
    assert dense_matrix_refusal(40_000) == ""
    monkeypatch.setenv("HOPBENCH_MAX_DENSE_MATRIX_BYTES", str(10**12))
    assert "16 bits" in dense_matrix_refusal(65_536)  # distances up to 65,535 would meet the sentinel
    assert dense_matrix_refusal(65_535) == ""
    monkeypatch.setenv("HOPBENCH_MAX_DENSE_MATRIX_BYTES", str(1000))
    assert dense_matrix_refusal(20) == ""  # 400 bytes
    assert dense_matrix_refusal(32)  # 1,024 bytes
