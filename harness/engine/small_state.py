"""A kept distance matrix for small graphs in pure numpy: :class:`SmallDistanceState`.

:class:`hopbench.harness.engine.distances.DistanceState` is numba.  In a process that
has not loaded numba yet (a ``hopbench solve`` of a 144-vertex torus), importing
it and loading its cached kernels costs over a second, while the whole solve
needs milliseconds.  This class gives the same numbers with whole-array numpy
operations, each O(n^2) per candidate endpoint, so it is only the cheaper
choice when the graph is small and the work is light; :func:`distance_state`
makes that choice.

Same conventions as the numba state: ``D`` is uint8 (uint16 when distances can
reach 255) with ``np.iinfo(dtype).max`` for unreachable pairs; ``hist[k]``
counts unordered pairs at distance k, its last bin the unreachable pairs.
The methods are the ones the greedy solvers use (``add_edge``, ``reductions``,
``score_histograms``, ``score``, ``copy``) with the same meaning, and a test
checks that both classes agree on random graphs.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Union

import numpy as np

from hopbench.harness.engine.dense import HistogramMetrics, distance_dtype
from hopbench.harness.engine.small import small_distance_matrix, small_summary
from hopbench.harness.graphs.graph import Graph

if TYPE_CHECKING:
    from hopbench.harness.engine.distances import DistanceState

#: graphs with more vertices always get the numba state
SMALL_STATE_N = 400
#: element operations (n * n per candidate endpoint scored) that the numpy state is given before the
#: numba state, about a second to load, is the cheaper one: numpy does about 3e8 a second here
SMALL_STATE_WORK = 2e8

#: candidates sharing an endpoint from which its tables beat direct passes (the numba state's rule)
_TABLE_MIN = 12
_BIG = 1 << 20  # an "infinite" distance in int32 arithmetic: 2 * _BIG + 1 still fits


def distance_state(g: Graph, *, work: float = 0.0) -> Union["DistanceState", "SmallDistanceState"]:
    """A kept distance matrix of ``g``: the numpy one for a small graph and light ``work`` (the caller's
    estimate of the n * n passes it will score) in a process that has not loaded numba's engine; otherwise
    the numba one.  Both give the same numbers, so the choice changes only the time."""
    if g.n < SMALL_STATE_N and work <= SMALL_STATE_WORK and "hopbench.harness.engine.distances" not in sys.modules:
        return SmallDistanceState.from_graph(g)
    from hopbench.harness.engine.distances import DistanceState

    return DistanceState.from_graph(g)


class SmallDistanceState(HistogramMetrics):
    """A distance matrix kept exact while edges are added, in numpy (see the module's note)."""

    def __init__(self, D: np.ndarray, hist: np.ndarray) -> None:
        self.D = D
        self.inf = int(np.iinfo(D.dtype).max)
        self.hist = hist
        self.infbin = hist.shape[0] - 1
        self.total = int(np.dot(np.arange(self.infbin, dtype=np.int64), hist[:-1]))
        self._upper = np.triu_indices(D.shape[0], 1)

    @classmethod
    def from_graph(cls, g: Graph) -> "SmallDistanceState":
        s = small_summary(g)
        # the dtype rule of the numba state: no distance reachable by adding edges may overflow
        bound = s.max_finite if s.connected else g.n - 1
        D = small_distance_matrix(g, distance_dtype(bound))
        state = cls.__new__(cls)
        state._upper = np.triu_indices(g.n, 1)
        hist = state._histogram(D.astype(np.int32), bound + 1, int(np.iinfo(D.dtype).max))
        cls.__init__(state, D, hist)
        return state

    # ------------------------------------------------------------------ helpers

    def _wide(self) -> np.ndarray:
        """D as int32, unreachable pairs at _BIG (so sums through them stay unreachable)."""
        W = self.D.astype(np.int32)
        W[self.D == self.inf] = _BIG
        return W

    def _histogram(self, W: np.ndarray, infbin: int, inf: int | None = None) -> np.ndarray:
        """Pair histogram of the upper triangle of W (values >= _BIG, or ``inf``, are unreachable)."""
        upper = W[self._upper]
        far = upper >= (_BIG if inf is None else inf)
        return np.bincount(np.where(far, infbin, upper), minlength=infbin + 1).astype(np.int64)

    def _with_edge(self, W: np.ndarray, x: int, y: int) -> np.ndarray:
        """W after adding edge x--y (int32, unreachable pairs at or above _BIG)."""
        via = np.minimum(W[:, x, None] + 1 + W[None, y, :], W[:, y, None] + 1 + W[None, x, :])
        return np.minimum(W, via)

    # ------------------------------------------------------------------ the state's interface

    def add_edge(self, x: int, y: int) -> None:
        """Add edge x--y: update the matrix and the histogram."""
        if x == y:
            return
        W = self._with_edge(self._wide(), int(x), int(y))
        far = W >= _BIG
        self.D[...] = np.where(far, self.inf, W)
        self.hist = self._histogram(W, self.infbin)
        self.total = int(np.dot(np.arange(self.infbin, dtype=np.int64), self.hist[:-1]))

    def score_histograms(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Pair-distance histogram after adding each candidate edge xs[i]--ys[i] alone (any graph)."""
        xs = np.asarray(xs, dtype=np.int64).ravel()
        ys = np.asarray(ys, dtype=np.int64).ravel()
        out = np.empty((xs.shape[0], self.infbin + 1), np.int64)
        W = self._wide()
        for c, (x, y) in enumerate(zip(xs.tolist(), ys.tolist())):
            out[c] = self.hist if x == y else self._histogram(self._with_edge(W, x, y), self.infbin)
        return out

    def score(self, xs: np.ndarray, ys: np.ndarray):  # -> hopbench.harness.engine.distances.CandidateScores
        """Exact (total, unreachable, diameter) after adding each edge alone, as the numba state's."""
        from hopbench.harness.engine.distances import CandidateScores

        hist = self.score_histograms(xs, ys)
        finite = hist[:, :-1] > 0
        diam = np.where(finite.any(axis=1), finite.shape[1] - 1 - np.argmax(finite[:, ::-1], axis=1), 0)
        total = hist[:, :-1] @ np.arange(self.infbin, dtype=np.int64)
        return CandidateScores(total=total, unreachable=hist[:, -1].copy(), diameter=diam.astype(np.int64),
                               n=self.n)

    def reductions(self, xs: np.ndarray, ys: np.ndarray, *,
                   level: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Exact hop savings of each candidate added alone, and the pairs at distance ``level`` it
        shortens (zeros without ``level``); connected graphs only, as the numba state's.

        Per distinct endpoint x, the numba state's tables: with M[u, v] = max(0, D[u,v] - D[u,x] - 1),
        F[v, k] = sum_u max(0, M[u,v] - k), and a candidate x--y saves sum_v F[v, D[y,v]] (every
        shortened unordered pair counted once, in the orientation u .. x - y .. v).
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
        # savings are symmetric in x and y: group by the endpoint that occurs more often
        swap = np.bincount(ys, minlength=self.n)[ys] > np.bincount(xs, minlength=self.n)[xs]
        gx = np.where(swap, ys, xs)
        gy = np.where(swap, xs, ys)
        n = self.n
        top = int(self.D.max())
        # int16 holds every difference below (distances of at most 16,000 hops): half the memory traffic
        D = self.D.astype(np.int16 if 2 * top + 2 < np.iinfo(np.int16).max else np.int32)
        at = (D == int(level)) if level is not None else None
        width = top + 2
        cols = np.arange(n)
        group_size = np.bincount(gx, minlength=n)
        big = np.flatnonzero(group_size >= _TABLE_MIN)
        for x in big.tolist():
            # many candidates share x (exhaustive rounds): its tables, then O(n) per candidate
            members = np.flatnonzero(gx == x)
            bins = (np.maximum(D - (D[:, x, None] + 1), 0).astype(np.int64) + cols * width).ravel()
            F = _saved_table(np.bincount(bins, minlength=n * width).reshape(n, width))
            rows = D[gy[members]]  # D[y, v] for each member y
            saved[members] = F[cols, rows].sum(axis=1)
            if at is not None:
                G = _above_table(np.bincount(bins, weights=at.ravel(), minlength=n * width).reshape(n, width))
                at_level[members] = G[cols, rows].sum(axis=1).astype(np.int64)
        for c in np.flatnonzero(group_size[gx] < _TABLE_MIN).tolist():
            # the others (sampled rounds), one at a time on the pairs that can shorten: u at least two hops
            # closer to x than to y, v at least two closer to y than to x (the numba kernels' pruning)
            x, y = int(gx[c]), int(gy[c])
            dx, dy = D[:, x], D[:, y]
            us = np.flatnonzero(dx + 1 < dy)
            vs = np.flatnonzero(dy + 1 < dx)
            if us.size == 0 or vs.size == 0:
                continue
            T = D[np.ix_(us, vs)] - (dx[us, None] + 1) - dy[None, vs]
            np.maximum(T, 0, out=T)
            saved[c] = T.sum(dtype=np.int64)
            if at is not None:
                at_level[c] = np.count_nonzero(T[at[np.ix_(us, vs)]])
        return saved, at_level

    def copy(self) -> "SmallDistanceState":
        return SmallDistanceState(self.D.copy(), self.hist.copy())


def _above_table(counts: np.ndarray) -> np.ndarray:
    """T[v, k] = sum of counts[v, m] over m > k."""
    suffix = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]  # sum over m >= k
    out = np.zeros_like(suffix)
    out[:, :-1] = suffix[:, 1:]
    return out


def _saved_table(counts: np.ndarray) -> np.ndarray:
    """F[v, k] = sum over m > k of (m - k) * counts[v, m]: the hops saved in column v when the far side's
    distance is k (each j in k+1..m adds one, so F[v, k] = sum over j > k of #{m >= j})."""
    at_least = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]  # #{m >= j}
    return _above_table(at_least).astype(np.int64)


__all__ = ["SMALL_STATE_N", "SMALL_STATE_WORK", "SmallDistanceState", "distance_state"]
