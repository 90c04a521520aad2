"""The distance engine: all-pairs hop distances, diameter, ASPL, incremental updates.

Everything here is compiled with numba (``cache=True``) and works on whole
arrays; no Python loop runs per vertex pair.

* :func:`summary` / :func:`distance_matrix` run an all-sources bit-parallel
  BFS: the sources are split into blocks of ``64 * words`` vertices, every
  vertex keeps one bit per source of the block (packed in uint64 words), and
  one BFS level is a single OR over the neighbours' frontier words.
* :class:`DistanceState` keeps a dense distance matrix (uint8 when every
  distance can stay below 255, else uint16) and a histogram of pair
  distances, so that adding one edge, or scoring a whole batch of candidate
  edges exactly (new total distance, unreachable pairs and diameter per
  candidate), costs only the pairs the edge can shorten.
* :meth:`DistanceState.reductions` scores whole batches of candidates for
  greedy solvers (the hop savings of each, optionally how many pairs at a
  given distance each shortens) with one vectorised sweep per batch, or with
  per-endpoint tables when every feasible pair is a candidate;
  :meth:`DistanceState.score_histograms` gives the full pair-distance
  histogram after each candidate.

Pruning used by the incremental kernels: a new edge x--y can only shorten the
distance u->v along u..x-y..v when ``d(u,x) + 1 < d(u,y)`` (u at least two
hops closer to x than to y) and ``d(v,y) + 1 < d(v,x)``.  Those two vertex
sets are disjoint, and every improved unordered pair shows up exactly once in
their product, so the histogram can be updated pair by pair.

Conventions: distances are hop counts; ASPL is the mean over unordered pairs
of distinct vertices; a disconnected graph has diameter and ASPL ``inf``.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import math
from dataclasses import dataclass

import numba as nb
import numpy as np

from hopbench.harness.engine.bitops import popcount64, trailing_zeros64
from hopbench.harness.engine.dense import (  # noqa: F401  (re-exported: the cost of a dense matrix, without numba)
    DENSE_STATE_SECONDS_PER_PAIR, SCALABLE_SOLVERS, HistogramMetrics, dense_matrix_refusal,
    dense_state_seconds_estimate, distance_dtype)
from hopbench.harness.engine.small import DistanceSummary  # one result type for the numba and numpy paths
from hopbench.harness.graphs.graph import Graph

#: sources per bit-parallel block = 64 * WORDS; 8 words (512 sources) keeps the
#: three per-block bit arrays in L2 for graphs of a few thousand vertices.
WORDS = 8

_BIG = 1 << 30  # an "infinite" distance in int arithmetic, far above any real one

#: candidates sharing an endpoint from which its tables beat dense passes
#: (measured on ring:256: a table costs about as much as 10 dense candidates)
_TABLE_MIN = 12
#: candidates scored per shared dense sweep over the matrix
_BATCH_MAX = 32


# --------------------------------------------------------------------------- kernels


#: a level scans every vertex instead of the frontier's neighbours once the frontier holds more than
#: 1 / _DENSE_FRONTIER of the vertices (then nearly every vertex is a candidate anyway)
_DENSE_FRONTIER = 4


@nb.njit(cache=True, parallel=True)
def _bitbfs(indptr, indices, n, words, out, inf, write):
    """All-sources BFS by blocks of 64*words sources.

    Returns per-block (sum of distances over reached ordered pairs, largest
    finite distance, reached ordered pairs incl. (s, s)).  When ``write`` is
    set, ``out[v, s]`` receives d(s, v) (``inf`` where unreachable); blocks
    write disjoint column ranges, so the parallel loop is race-free.

    A level visits only the neighbours of the block's frontier while that
    frontier is small: a graph of large diameter (a ring of 10,000 vertices
    has 5,000 levels, each with about 1,000 frontier vertices per block) would
    otherwise cost a scan of all n vertices per level.
    """
    per_block = 64 * words
    nblocks = (n + per_block - 1) // per_block
    totals = np.zeros(nblocks, np.int64)
    diams = np.zeros(nblocks, np.int64)
    reached = np.zeros(nblocks, np.int64)
    for b in nb.prange(nblocks):
        s0 = b * per_block
        s1 = min(n, s0 + per_block)
        ns = s1 - s0
        w_count = (ns + 63) // 64
        visited = np.zeros((n, w_count), np.uint64)
        # rows of vertices outside the frontier list may keep bits of an older level: harmless, since a
        # source new at u on level L is visited at every neighbour of u by level L + 1
        frontier = np.zeros((n, w_count), np.uint64)
        nxt = np.zeros((n, w_count), np.uint64)
        done = np.zeros(n, np.bool_)
        acc = np.zeros(w_count, np.uint64)
        front = np.empty(n, np.int64)  # the vertices with a non-zero frontier row
        front_next = np.empty(n, np.int64)
        cand = np.empty(n, np.int64)
        stamp = np.zeros(n, np.int64)  # the level at which a vertex was last listed as a candidate
        if write:
            for v in range(n):
                for s in range(s0, s1):
                    out[v, s] = inf
        for s in range(s0, s1):
            k = s - s0
            bit = np.uint64(1) << np.uint64(k & 63)
            visited[s, k >> 6] |= bit
            frontier[s, k >> 6] |= bit
            front[k] = s
            if write:
                out[s, s] = 0
        n_front = ns
        level = 0
        total = 0
        diam = 0
        reach = ns
        while True:
            level += 1
            dense = n_front * _DENSE_FRONTIER > n
            n_cand = n
            if not dense:
                n_cand = 0
                for i in range(n_front):
                    u = front[i]
                    for p in range(indptr[u], indptr[u + 1]):
                        v = indices[p]
                        if stamp[v] != level and not done[v]:
                            stamp[v] = level
                            cand[n_cand] = v
                            n_cand += 1
            count = 0
            n_next = 0
            for i in range(n_cand):
                v = i if dense else cand[i]
                if done[v]:
                    continue
                for w in range(w_count):
                    acc[w] = 0
                for p in range(indptr[v], indptr[v + 1]):
                    u = indices[p]
                    for w in range(w_count):
                        acc[w] |= frontier[u, w]
                c = 0
                seen = 0
                for w in range(w_count):
                    new = acc[w] & ~visited[v, w]
                    nxt[v, w] = new
                    visited[v, w] |= new
                    c += popcount64(new)
                    seen += popcount64(visited[v, w])
                    if write:
                        bits = new
                        while bits:
                            t = trailing_zeros64(bits)
                            out[v, s0 + w * 64 + t] = level
                            bits &= bits - np.uint64(1)
                if seen == ns:
                    done[v] = True
                if c:
                    front_next[n_next] = v
                    n_next += 1
                count += c
            if count == 0:
                break
            total += level * count
            diam = level
            reach += count
            frontier, nxt = nxt, frontier
            front, front_next = front_next, front
            n_front = n_next
        totals[b] = total
        diams[b] = diam
        reached[b] = reach
    return totals.sum(), diams.max() if nblocks else 0, reached.sum()


@nb.njit(cache=True)
def _bfs_from(indptr, indices, source, dist, queue):
    """Queue BFS from ``source`` into ``dist`` (all -1 on entry); returns (vertices reached, in BFS order
    in ``queue[:reached]``, and the sum of their distances)."""
    dist[source] = 0
    queue[0] = source
    head, tail = 0, 1
    total = 0
    while head < tail:
        u = queue[head]
        head += 1
        du = dist[u] + 1
        for p in range(indptr[u], indptr[u + 1]):
            v = indices[p]
            if dist[v] < 0:
                dist[v] = du
                queue[tail] = v
                tail += 1
                total += du
    return tail, total


@nb.njit(cache=True)
def _bfs_single(indptr, indices, n, source):
    dist = np.full(n, -1, np.int32)
    _bfs_from(indptr, indices, source, dist, np.empty(n, np.int32))
    return dist


@nb.njit(cache=True)
def _probe_depth(indptr, indices, n):
    """The largest eccentricity, within its component, of each component's lowest vertex (one BFS per
    component, linear time): at least half the deepest BFS any source will run."""
    dist = np.full(n, -1, np.int32)
    queue = np.empty(n, np.int32)
    deepest = 0
    for root in range(n):
        if dist[root] < 0:
            tail, _ = _bfs_from(indptr, indices, root, dist, queue)
            deepest = max(deepest, dist[queue[tail - 1]])
    return deepest


def _is_wide(g: Graph, depth: int) -> bool:
    return g.n >= WIDE_MIN_VERTICES and depth >= WIDE_ECCENTRICITY


@nb.njit(cache=True, parallel=True)
def _queue_bfs(indptr, indices, n, out, inf, write, chunks):
    """All-sources BFS, one queue BFS per source, sources split into ``chunks`` ranges; the same
    results as :func:`_bitbfs` (``out[s, v]`` = d(s, v), the matrix being symmetric)."""
    totals = np.zeros(chunks, np.int64)
    diams = np.zeros(chunks, np.int64)
    reached = np.zeros(chunks, np.int64)
    for c in nb.prange(chunks):
        dist = np.empty(n, np.int64)
        queue = np.empty(n, np.int64)
        total = 0
        diam = 0
        reach = 0
        for s in range(c * n // chunks, (c + 1) * n // chunks):
            dist[:] = -1
            tail, dsum = _bfs_from(indptr, indices, s, dist, queue)
            total += dsum
            reach += tail
            if dist[queue[tail - 1]] > diam:
                diam = dist[queue[tail - 1]]
            if write:
                for v in range(n):
                    out[s, v] = dist[v] if dist[v] >= 0 else inf
        totals[c] = total
        diams[c] = diam
        reached[c] = reach
    return totals.sum(), diams.max(), reached.sum()


#: from this probed eccentricity (:func:`_probe_depth`) up, one queue BFS per source beats the bit-parallel blocks, whose
#: words are nearly empty when each level reaches few vertices: on ring:4096 (eccentricity 2,048) 0.25 s
#: against 0.05 s; on torus:64x64 (64) the blocks win, 25 ms against about 50 ms
WIDE_ECCENTRICITY = 128
#: below this many vertices the bit-parallel kernel is used regardless (one or two blocks of sources, a
#: fraction of a second at most), which also spares small problems compiling the other two kernels
WIDE_MIN_VERTICES = 1024


def _all_sources(g: Graph, words: int, out: np.ndarray, inf: int, write: bool) -> tuple[int, int, int]:
    """(sum of distances over reached ordered pairs, largest finite distance, reached ordered pairs incl.
    (s, s)), and ``out`` filled when ``write``: by the queue BFS on graphs of large diameter, else bit-parallel."""
    indptr, indices = _csr(g)
    if _is_wide(g, _probe_depth(indptr, indices, g.n)):
        return _queue_bfs(indptr, indices, g.n, out, inf, write, min(g.n, 64))
    return _bitbfs(indptr, indices, g.n, words, out, inf, write)


#: row blocks of :func:`_pair_histogram`, each with its own histogram: enough to balance the
#: threads, few enough that the histograms stay small when ``infbin`` is n (a disconnected graph)
_HISTOGRAM_BLOCKS = 64


@nb.njit(cache=True, parallel=True)
def _pair_histogram(D, inf, infbin):
    """Histogram of d(u, v) over unordered pairs u < v; unreachable pairs go to ``infbin``."""
    n = D.shape[0]
    blocks = min(n, _HISTOGRAM_BLOCKS)
    rows = np.zeros((max(blocks, 1), infbin + 1), np.int64)
    for b in nb.prange(blocks):
        for u in range(b, n, blocks):  # interleaved rows: the triangle's work is shared evenly
            for v in range(u + 1, n):
                d = D[u, v]
                if d == inf:
                    rows[b, infbin] += 1
                else:
                    rows[b, d] += 1
    return rows.sum(axis=0)


@nb.njit(cache=True, inline="always")
def _as_int(d, inf):
    return _BIG if d == inf else np.int64(d)


@nb.njit(cache=True)
def _split_sides(D, x, y, inf, u_idx, u_dist, v_idx, v_dist):
    """Fill the vertices two or more hops closer to x (with d(u,x)+1) and to y (with d(y,v))."""
    n = D.shape[0]
    nu = 0
    nv = 0
    for w in range(n):
        dx = _as_int(D[x, w], inf)
        dy = _as_int(D[y, w], inf)
        if dx + 1 < dy:
            u_idx[nu] = w
            u_dist[nu] = dx + 1
            nu += 1
        elif dy + 1 < dx:
            v_idx[nv] = w
            v_dist[nv] = dy
            nv += 1
    return nu, nv


@nb.njit(cache=True)
def _apply_edge(D, x, y, inf, hist, infbin):
    n = D.shape[0]
    u_idx = np.empty(n, np.int64)
    u_dist = np.empty(n, np.int64)
    v_idx = np.empty(n, np.int64)
    v_dist = np.empty(n, np.int64)
    nu, nv = _split_sides(D, x, y, inf, u_idx, u_dist, v_idx, v_dist)
    for i in range(nu):
        u = u_idx[i]
        a = u_dist[i]
        for j in range(nv):
            v = v_idx[j]
            nd = a + v_dist[j]
            old = _as_int(D[u, v], inf)
            if nd < old:
                hist[infbin if old == _BIG else old] -= 1
                hist[nd] += 1
                D[u, v] = nd
                D[v, u] = nd


@nb.njit(cache=True)
def _edge_sides(D, x, y, rx, ry, rows):
    """Copy rows x and y into rx, ry; list x-side rows then y-side rows; return (count, x-side count)."""
    n = D.shape[0]
    for w in range(n):
        rx[w] = D[x, w]
        ry[w] = D[y, w]
    cnt = 0
    for w in range(n):
        if rx[w] + 1 < ry[w]:
            rows[cnt] = w
            cnt += 1
    nu = cnt
    for w in range(n):
        if ry[w] + 1 < rx[w]:
            rows[cnt] = w
            cnt += 1
    return cnt, nu


@nb.njit(cache=True)
def _relax_rows(D, rows, nu, lo, hi, rx, ry, dh):
    """Rows ``rows[lo:hi]``: x-side rows take paths through x--y (counted in ``dh``), y-side rows the mirror."""
    n = D.shape[0]
    for i in range(lo, hi):
        w = rows[i]
        row = D[w]
        if i < nu:
            a = rx[w] + 1
            for v in range(n):
                nd = a + ry[v]
                old = np.int32(row[v])
                if nd < old:
                    dh[old] -= 1
                    dh[nd] += 1
                    row[v] = nd
        else:
            a = ry[w] + 1
            for v in range(n):
                nd = a + rx[v]
                if nd < np.int32(row[v]):
                    row[v] = nd


@nb.njit(cache=True, parallel=True)
def _apply_edge_rows(D, x, y, hist, chunks):
    """:func:`_apply_edge` for a connected graph, row by row, ``chunks`` row blocks in parallel.

    Rows on x's side get D[u, :] = min(D[u, :], D[u,x] + 1 + D[y, :]), rows on
    y's side the mirror image; other entries cannot change.  Contiguous row
    passes replace the column-strided writes of the pairwise loop, which
    dominate on graphs of a few thousand vertices.  Each shortened unordered
    pair is counted once in the histogram, from the x-side row.
    """
    n = D.shape[0]
    rx = np.empty(n, np.int32)
    ry = np.empty(n, np.int32)
    rows = np.empty(n, np.int64)
    cnt, nu = _edge_sides(D, x, y, rx, ry, rows)
    dh = np.zeros((chunks, hist.shape[0]), np.int64)
    for c in nb.prange(chunks):
        _relax_rows(D, rows, nu, c * cnt // chunks, (c + 1) * cnt // chunks, rx, ry, dh[c])
    for c in range(chunks):
        for k in range(hist.shape[0]):
            hist[k] += dh[c, k]


@nb.njit(cache=True)
def _apply_edge_rows_serial(D, x, y, hist):
    """:func:`_apply_edge_rows` in one thread: a parallel region costs tens of
    microseconds to start (more on a busy machine), which small graphs never win back."""
    n = D.shape[0]
    rx = np.empty(n, np.int32)
    ry = np.empty(n, np.int32)
    rows = np.empty(n, np.int64)
    cnt, nu = _edge_sides(D, x, y, rx, ry, rows)
    _relax_rows(D, rows, nu, 0, cnt, rx, ry, hist)


@nb.njit(cache=True)
def _add_candidate_delta(D, x, y, inf, infbin, h, u_idx, u_dist, v_idx, v_dist):
    """Move every pair that edge x--y would shorten to its new bin of histogram ``h``."""
    nu, nv = _split_sides(D, x, y, inf, u_idx, u_dist, v_idx, v_dist)
    for i in range(nu):
        row = D[u_idx[i]]
        a = u_dist[i]
        for j in range(nv):
            nd = a + v_dist[j]
            old = _as_int(row[v_idx[j]], inf)
            if nd < old:
                h[infbin if old == _BIG else old] -= 1
                h[nd] += 1


@nb.njit(cache=True)
def _candidate_delta(D, x, y, inf, infbin, h):
    """:func:`_add_candidate_delta` with work arrays of its own (one set per parallel candidate)."""
    n = D.shape[0]
    _add_candidate_delta(D, x, y, inf, infbin, h, np.empty(n, np.int64), np.empty(n, np.int64),
                         np.empty(n, np.int64), np.empty(n, np.int64))


@nb.njit(cache=True, parallel=True)
def _score_edges(D, xs, ys, inf, hist, infbin, base_total, out_total, out_unreach, out_diam):
    for c in nb.prange(xs.shape[0]):
        dh = np.zeros(infbin + 1, np.int64)
        _candidate_delta(D, xs[c], ys[c], inf, infbin, dh)
        total = base_total
        diam = 0
        for k in range(infbin):
            total += k * dh[k]
            if hist[k] + dh[k] > 0:
                diam = k
        out_total[c] = total
        out_unreach[c] = hist[infbin] + dh[infbin]
        out_diam[c] = diam


# --------------------------------------------------------------------------- full APSP


def _csr(g: Graph) -> tuple[np.ndarray, np.ndarray]:
    return g.csr


def summary(g: Graph, *, words: int = WORDS) -> DistanceSummary:
    """Diameter, ASPL and the sums behind them, by all-sources BFS (no matrix kept)."""
    dummy = np.zeros((1, 1), np.uint8)
    total, diam, reached = _all_sources(g, words, dummy, 0, False)
    unreachable_ordered = g.n * g.n - int(reached)
    return DistanceSummary(n=g.n, total=int(total) // 2, unreachable_pairs=unreachable_ordered // 2,
                           max_finite=int(diam))


#: seconds per (vertex x 64-source word x neighbour x BFS level) of :func:`summary`, with margin:
#: measured 0.3-0.9 ns on random regular graphs, n = 2,000-40,000, d = 4-20, 2 cores (one core or a
#: loaded machine is about 2x slower)
SUMMARY_SECONDS_PER_WORD_STEP = 2.5e-9
#: seconds per (source x (vertex + arc)) of the queue BFS that :func:`summary` runs on graphs of large
#: diameter, with margin: measured 1.5-2.0 ns on ring:10000, mesh:150x150 and mesh:40x1000, 2 cores
SUMMARY_SECONDS_PER_QUEUE_STEP = 5e-9


def summary_seconds_estimate(g: Graph) -> float:
    """A generous estimate of the seconds :func:`summary` takes on ``g``: for a solver that must know
    whether an evaluation still fits in its time budget.  It follows the engine's own choice of
    kernel, from one BFS per component (linear time, :func:`_probe_depth`): the queue BFS costs
    n (n + 2m) steps whatever the depth; the bit-parallel one n x words x mean degree per level, with
    as many levels as twice the probed eccentricity or a random graph's depth, log n / log(mean
    degree - 1) + 3, whichever is larger."""
    n, m = g.n, g.m
    if n < 2 or m < 1:
        return 0.0
    indptr, indices = _csr(g)
    eccentricity = int(_probe_depth(indptr, indices, n))
    if _is_wide(g, eccentricity):
        return SUMMARY_SECONDS_PER_QUEUE_STEP * n * (n + 2.0 * m)
    mean_degree = 2.0 * m / n
    depth = math.log(n) / math.log(max(mean_degree - 1.0, 1.5)) + 3.0
    depth = max(depth, 2.0 * eccentricity + 1.0)
    words = (n + 63) // 64
    return SUMMARY_SECONDS_PER_WORD_STEP * n * words * mean_degree * depth


def diameter(g: Graph) -> float:
    return summary(g).diameter


def aspl(g: Graph) -> float:
    return summary(g).aspl


def distance_matrix(g: Graph, *, dtype: type | None = None, words: int = WORDS) -> np.ndarray:
    """Dense ``n x n`` hop-distance matrix; unreachable pairs hold ``np.iinfo(dtype).max``.

    Without ``dtype`` the narrowest type that fits the graph's diameter is used.
    """
    if dtype is None:
        s = summary(g, words=words)
        dtype = distance_dtype(s.max_finite)
    out = np.empty((g.n, g.n), dtype=dtype)
    _all_sources(g, words, out, np.iinfo(dtype).max, True)
    return out


def bfs_distances(g: Graph, source: int) -> np.ndarray:
    """Hop distances from one source (int32, -1 where unreachable)."""
    indptr, indices = _csr(g)
    return _bfs_single(indptr, indices, g.n, int(source))


# --------------------------------------------------------------------------- incremental


@dataclass(frozen=True)
class CandidateScores:
    """Exact metrics of the graph after adding each candidate edge alone."""

    total: np.ndarray  #: int64, sum of finite distances over unordered pairs
    unreachable: np.ndarray  #: int64, unordered pairs still without a path
    diameter: np.ndarray  #: int64, largest finite distance
    n: int

    def aspl(self) -> np.ndarray:
        pairs = self.n * (self.n - 1) // 2
        out = self.total / max(pairs, 1)
        return np.where(self.unreachable > 0, np.inf, out)


class DistanceState(HistogramMetrics):
    """A distance matrix kept exact while edges are added one at a time.

    ``hist[k]`` counts unordered pairs at distance k; the last bin counts
    unreachable pairs.  The matrix dtype is chosen so that no distance the
    graph can ever reach by adding edges overflows: its current diameter if
    it is connected, else n - 1.
    """

    def __init__(self, D: np.ndarray, hist: np.ndarray) -> None:
        self.D = D
        self.inf = int(np.iinfo(D.dtype).max)
        self.hist = hist
        self.infbin = hist.shape[0] - 1
        self.total = int(np.dot(np.arange(self.infbin, dtype=np.int64), hist[:-1]))

    @classmethod
    def from_graph(cls, g: Graph) -> "DistanceState":
        s = summary(g)
        bound = s.max_finite if s.connected else g.n - 1
        D = distance_matrix(g, dtype=distance_dtype(bound))
        infbin = bound + 1
        hist = _pair_histogram(D, np.iinfo(D.dtype).max, infbin)
        return cls(D, hist)

    def add_edge(self, x: int, y: int) -> None:
        """Add edge x--y: update the matrix and the histogram in place."""
        if self.unreachable == 0 and x != y:
            # connected: no 'unreachable' sentinel can appear, so the row-wise kernel applies
            if self.n * self.n >= _PARALLEL_MIN_WORK:
                _apply_edge_rows(self.D, int(x), int(y), self.hist, 4 * nb.get_num_threads())
            else:
                _apply_edge_rows_serial(self.D, int(x), int(y), self.hist)
        else:
            _apply_edge(self.D, int(x), int(y), self.inf, self.hist, self.infbin)
        self.total = int(np.dot(np.arange(self.infbin, dtype=np.int64), self.hist[:-1]))

    def score(self, xs: np.ndarray, ys: np.ndarray) -> CandidateScores:
        """Exact (total, unreachable, diameter) after adding each edge xs[i]--ys[i] alone."""
        xs = np.ascontiguousarray(xs, dtype=np.int64)
        ys = np.ascontiguousarray(ys, dtype=np.int64)
        k = xs.shape[0]
        total = np.empty(k, np.int64)
        unreach = np.empty(k, np.int64)
        diam = np.empty(k, np.int64)
        _score_edges(self.D, xs, ys, self.inf, self.hist, self.infbin, self.total, total, unreach, diam)
        return CandidateScores(total=total, unreachable=unreach, diameter=diam, n=self.n)

    def reductions(self, xs: np.ndarray, ys: np.ndarray, *,
                   level: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Exact hop savings of each candidate edge xs[i]--ys[i] added alone (connected graphs).

        Returns ``(saved, shortened_at_level)``: ``saved[i]`` is the drop of
        :attr:`total` (so the new total is ``total - saved``) and
        ``shortened_at_level[i]`` the number of unordered pairs at distance
        ``level`` that the edge shortens (zeros without ``level``).  With
        ``level = diameter`` the candidate keeps the diameter exactly when
        ``hist[level] - shortened_at_level > 0``.

        Candidates sharing an endpoint are scored together through per-column
        tables, so scoring every feasible pair of a few-hundred-vertex graph
        takes milliseconds.  Raises ``ValueError`` on a disconnected graph
        (use :meth:`score` or :meth:`score_histograms` there).
        """
        if self.unreachable:
            raise ValueError("reductions() needs a connected graph; use score() or score_histograms()")
        xs = np.asarray(xs, dtype=np.int64).ravel()
        ys = np.asarray(ys, dtype=np.int64).ravel()
        k = xs.shape[0]
        saved = np.zeros(k, np.int64)
        at_level = np.zeros(k, np.int64)
        if k == 0:
            return saved, at_level
        lvl = -1 if level is None else int(level)
        # group by the endpoint that occurs more often, so tables get reused
        swap = np.bincount(ys, minlength=self.n)[ys] > np.bincount(xs, minlength=self.n)[xs]
        gx = np.where(swap, ys, xs)
        gy = np.where(swap, xs, ys)
        order = np.argsort(gx, kind="stable")
        gx = np.ascontiguousarray(gx[order])
        gy = np.ascontiguousarray(gy[order])
        starts = np.flatnonzero(np.r_[True, gx[1:] != gx[:-1], True]).astype(np.int64)
        big = np.diff(starts) >= _TABLE_MIN
        in_big = np.repeat(big, np.diff(starts))
        out_saved = np.empty(k, np.int64)
        out_level = np.empty(k, np.int64)
        if big.any():
            # many candidates per endpoint (exhaustive rounds): per-endpoint tables
            width = int(np.flatnonzero(self.hist[:-1])[-1]) + 2
            if self.n * width >= 2**31:  # pragma: no cover - such a matrix would not fit in memory
                raise ValueError("graph too large for the reduction tables")
            bx, by = np.ascontiguousarray(gx[in_big]), np.ascontiguousarray(gy[in_big])
            bstarts = np.r_[0, np.cumsum(np.diff(starts)[big])].astype(np.int64)
            bs, bl = np.empty(bx.size, np.int64), np.empty(bx.size, np.int64)
            work = (bstarts.size - 1) * self.n * self.n  # one n x n pass per table
            kernel = _reductions if work >= _PARALLEL_MIN_WORK else _reductions_serial
            kernel(self.D, bx, by, bstarts, lvl, width, bs, bl)
            out_saved[in_big], out_level[in_big] = bs, bl
        rest = np.flatnonzero(~in_big)
        for lo in range(0, rest.size, _BATCH_MAX):
            # the others (sampled rounds) in small batches: one sweep over the matrix serves a batch
            idx = rest[lo:lo + _BATCH_MAX]
            bx, by = np.ascontiguousarray(gx[idx]), np.ascontiguousarray(gy[idx])
            bs, bl = np.empty(idx.size, np.int64), np.empty(idx.size, np.int64)
            if idx.size * self.n * self.n >= 2 * _PARALLEL_MIN_WORK:
                _reductions_batch(self.D, bx, by, lvl, 4 * nb.get_num_threads(), bs, bl)
            else:
                _reductions_batch_serial(self.D, bx, by, lvl, bs, bl)
            out_saved[idx], out_level[idx] = bs, bl
        saved[order] = out_saved
        at_level[order] = out_level
        return saved, at_level

    def score_histograms(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Pair-distance histogram after adding each candidate edge alone, any graph.

        Row i has the layout of :attr:`hist` (bin k counts pairs at distance
        k, the last bin unreachable pairs).  Exact, like :meth:`score`, and
        richer: it tells how many pairs remain at the new diameter.
        """
        xs = np.ascontiguousarray(xs, dtype=np.int64).ravel()
        ys = np.ascontiguousarray(ys, dtype=np.int64).ravel()
        out = np.empty((xs.shape[0], self.infbin + 1), np.int64)
        _score_histograms(self.D, xs, ys, self.inf, self.hist, self.infbin, out)
        return out

    def copy(self) -> "DistanceState":
        return DistanceState(self.D.copy(), self.hist.copy())


# --------------------------------------------------------------------------- candidate reductions
#
# Greedy solvers score many candidates per round.  For a connected graph the
# total-distance saving of a candidate x--y has a closed form over ordered
# pairs (u, v):
#
#     saved(x, y) = sum_{u, v} max(0, D[u,v] - (D[u,x] + 1) - D[y,v])
#
# A term can only be positive when u is at least two hops closer to x than to
# y and v at least two hops closer to y than to x (the same pruning as above),
# so every shortened unordered pair is counted exactly once, in the
# orientation whose path runs u .. x - y .. v.  Two evaluation strategies:
#
# * batch (a sampled round, e.g. ECF's t = 10): for every row D[u] and every
#   candidate with u on its x side, one branch-free pass along the row,
#   which the compiler vectorises; the rows are swept once per batch of up to
#   _BATCH_MAX candidates, not once per candidate.
# * tables (many candidates sharing the endpoint x, as in exhaustive rounds):
#   tabulate per column v F_v(k) = sum_u max(0, D[u,v] - D[u,x] - 1 - k) once
#   (O(n^2 + n diam)); then each candidate x--y costs one look-up per column,
#   sum_v F_v(D[y,v]) (O(n)).  This makes exhaustive greedy (every feasible
#   pair, every round) affordable.
#
# Optionally the kernels also count the shortened pairs whose current
# distance equals ``level`` (the diameter, for diameter-first objectives).


@nb.njit(cache=True)
def _reduction_tables(D, x, level, F, G):
    """Fill F[v, k] = sum_u max(0, D[u,v]-D[u,x]-1-k) and, when ``level >= 0``,
    G[v, k] = #{u: D[u,v] = level and D[u,v]-D[u,x]-1 > k}.

    Row F[v] is small (one entry per distance), so the later look-ups
    F[v, D[v, y]] for a whole group of y stay in L1.
    """
    n = D.shape[0]
    width = F.shape[1]
    F[:, :] = 0
    if level >= 0:
        G[:, :] = 0
    rx = D[x]
    # histograms first: F[v, m] counts u with D[u,v] - D[u,x] - 1 == m.  Values
    # m <= 0 save nothing; they all land in bin 0, which no F(k) reads (k >= 0
    # only sums bins m > k), so the loop needs no branch.
    for u in range(n):
        a = np.int64(rx[u]) + 1
        row = D[u]
        if level >= 0:
            for v in range(n):
                m = max(np.int64(row[v]) - a, 0)
                F[v, m] += 1
                G[v, m] += np.int32(row[v] == level)
        else:
            for v in range(n):
                F[v, max(np.int64(row[v]) - a, 0)] += 1
    # then suffix sums over k turn bin counts into saved hops:
    #   F(k) = F(k+1) + #{m > k},   G(k) = #{m > k at level}
    for v in range(n):
        fv = F[v]
        above = np.int32(0)
        saved = np.int32(0)
        for k in range(width - 1, -1, -1):
            h = fv[k]
            saved += above
            fv[k] = saved
            above += h
        if level >= 0:
            gv = G[v]
            above = np.int32(0)
            for k in range(width - 1, -1, -1):
                h = gv[k]
                gv[k] = above
                above += h


@nb.njit(cache=True)
def _dense_rows(D, xs, ys, level, lo, hi, saved, at_level):
    """Rows ``lo:hi`` of the dense pass, for a whole (small) batch of candidates at once.

    Each row D[u] is read once for every candidate that has u on its x side,
    so a batch costs one sweep over the matrix instead of one per candidate.
    """
    n = D.shape[0]
    k = xs.shape[0]
    for u in range(lo, hi):
        row = D[u]
        for c in range(k):
            a = np.int32(row[xs[c]]) + np.int32(1)
            if a < np.int32(row[ys[c]]):
                ry = D[ys[c]]
                s = np.int32(0)
                cl = np.int32(0)
                for v in range(n):
                    t = np.int32(row[v]) - a - np.int32(ry[v])
                    s += max(t, np.int32(0))
                    cl += np.int32((t > 0) & (np.int32(row[v]) == level))
                saved[c] += s
                at_level[c] += cl


@nb.njit(cache=True, parallel=True)
def _reductions_batch(D, xs, ys, level, chunks, out_saved, out_level):
    """Dense savings of a small batch of candidates, ``chunks`` row blocks in parallel."""
    n = D.shape[0]
    k = xs.shape[0]
    saved = np.zeros((chunks, k), np.int64)
    at_level = np.zeros((chunks, k), np.int64)
    for c in nb.prange(chunks):
        _dense_rows(D, xs, ys, level, c * n // chunks, (c + 1) * n // chunks, saved[c], at_level[c])
    for j in range(k):
        out_saved[j] = 0
        out_level[j] = 0
        for c in range(chunks):
            out_saved[j] += saved[c, j]
            out_level[j] += at_level[c, j]


@nb.njit(cache=True)
def _reductions_batch_serial(D, xs, ys, level, out_saved, out_level):
    """:func:`_reductions_batch` in one thread."""
    out_saved[:] = 0
    out_level[:] = 0
    _dense_rows(D, xs, ys, level, 0, D.shape[0], out_saved, out_level)


@nb.njit(cache=True)
def _reduce_group(D, xs, ys, lo, hi, level, width, out_saved, out_level):
    """Candidates ``lo:hi``, all with endpoint ``xs[lo]``, through that endpoint's tables."""
    n = D.shape[0]
    # int32 is enough: an entry is at most n * width (checked by the caller)
    F = np.empty((n, width), np.int32)
    G = np.empty((n if level >= 0 else 1, width), np.int32)
    _reduction_tables(D, xs[lo], level, F, G)
    # column by column (D is symmetric: D[v, y] = D[y, v]), all candidates at once
    m = hi - lo
    acc = np.zeros(m, np.int64)
    acc_level = np.zeros(m, np.int64)
    for v in range(n):
        fv = F[v]
        dv = D[v]
        for j in range(m):
            acc[j] += fv[dv[ys[lo + j]]]
        if level >= 0:
            gv = G[v]
            for j in range(m):
                acc_level[j] += gv[dv[ys[lo + j]]]
    for j in range(m):
        out_saved[lo + j] = acc[j]
        out_level[lo + j] = acc_level[j]


@nb.njit(cache=True, parallel=True)
def _reductions(D, xs, ys, starts, level, width, out_saved, out_level):
    """Saved hops (and shortened pairs at ``level``) per candidate, by per-endpoint tables.

    Group g holds candidates ``starts[g]:starts[g+1]``, all with the same x.  ``width``
    must exceed the largest distance in D (tables are indexed by D[y, v]).
    """
    for g in nb.prange(starts.shape[0] - 1):
        _reduce_group(D, xs, ys, starts[g], starts[g + 1], level, width, out_saved, out_level)


@nb.njit(cache=True)
def _reductions_serial(D, xs, ys, starts, level, width, out_saved, out_level):
    """:func:`_reductions` in one thread, for batches too small to pay for a parallel region."""
    for g in range(starts.shape[0] - 1):
        _reduce_group(D, xs, ys, starts[g], starts[g + 1], level, width, out_saved, out_level)


#: work (matrix entries touched) below which the serial kernels are used
_PARALLEL_MIN_WORK = 1 << 21


@nb.njit(cache=True, parallel=True)
def _score_histograms(D, xs, ys, inf, hist, infbin, out):
    """out[c] = the pair-distance histogram after adding edge xs[c]--ys[c] alone."""
    for c in nb.prange(xs.shape[0]):
        h = out[c]
        for k in range(infbin + 1):
            h[k] = hist[k]
        _candidate_delta(D, xs[c], ys[c], inf, infbin, h)
