"""Fully dynamic all-pairs distances: exact updates when an edge is removed as well as added.

:class:`hopbench.harness.engine.distances.DistanceState` only ever adds edges.  Local search
(simulated annealing, for instance) also takes edges away, so this module
adds the decremental half, for the same dense matrix + pair-histogram
representation:

* :func:`remove_edge_repair` recomputes only what can change.  Removing x--y
  can only lengthen d(s, v) when every shortest s-v path uses the edge, so
  only sources with ``|d(s,x) - d(s,y)| = 1`` are looked at, and in such a
  source's row only the vertices hanging below the far endpoint in the
  shortest-path DAG.  Per affected source: a BFS over the DAG below the far
  endpoint finds the vertices that lost every shortest path (a vertex keeps
  its distance iff some parent one level up keeps its own), then a
  two-queue BFS (sorted boundary estimates merged with a FIFO) gives their
  new distances.  The cost is proportional to the entries that change, not
  to the graph.
* :func:`remove_edge_bitparallel` reruns the bit-parallel BFS of
  :mod:`hopbench.harness.engine.distances` on the affected sources only (one bit per affected
  source), then rewrites their rows.

``tests/benchmarks/bench_annealing.py`` times both against a full
recomputation; the annealer uses the repair kernel (the faster one; see
docs/solvers-annealing-milp.md for the numbers).

Both kernels work in place on the matrix of the graph *with* the edge and
ignore the edge x--y wherever it occurs in the adjacency, so callers can
evaluate a removal before committing it.  Adjacency is a padded array
``nbr[v, :nbc[v]]``.  Unreachable pairs hold the dtype's maximum, as in
:mod:`hopbench.harness.engine.distances`; the last histogram bin counts them.

For additions, :func:`addition_savings` scores one candidate edge on a
connected graph with one contiguous pass per affected row (the saved hops
and the shortened pairs at a given distance), and
:func:`addition_histogram_delta` gives the exact histogram change on any
graph.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split


import numba as nb
import numpy as np

from hopbench.harness.engine.bitops import popcount64, trailing_zeros64
from hopbench.harness.engine.distances import (
    HistogramMetrics,
    _add_candidate_delta,
    _apply_edge,
    _apply_edge_rows_serial,
    _pair_histogram,
    distance_dtype,
    distance_matrix,
)
from hopbench.harness.graphs.graph import Graph

_BIG = 1 << 30  # "infinite" distance in int arithmetic

#: rows of the int64 scratch array the repair kernel needs (see :func:`workspace`)
WORKSPACE_ROWS = 8


def workspace(n: int) -> np.ndarray:
    """Scratch memory for :func:`remove_edge_repair`; allocate once and reuse (must start zeroed)."""
    return np.zeros((WORKSPACE_ROWS, n), np.int64)


# --------------------------------------------------------------------------- removal: repair


@nb.njit(cache=True)
def _skip(v, w, x, y):
    """True for the removed edge x--y, in either direction."""
    return (v == x and w == y) or (v == y and w == x)


@nb.njit(cache=True)
def remove_edge_repair(D, nbr, nbc, x, y, inf, hist, ws):
    """Remove edge x--y: update D (and the pair histogram) in place, touching only what changes.

    ``D`` holds the distances of the graph with the edge; ``nbr``/``nbc`` its
    adjacency (x--y may or may not be listed: it is skipped).  ``ws`` is a
    zeroed :func:`workspace` and is left zeroed.
    """
    n = D.shape[0]
    infbin = hist.shape[0] - 1
    flag = ws[0]  # 0 untested, 1 lost its distance, 2 tested and kept it; reset per source
    order = ws[1]  # the changed vertices, in order of their old distance
    nd = ws[2]  # new distance estimates
    queue = ws[3]
    rx = ws[4]
    ry = ws[5]
    srt = ws[6]
    cnt = ws[7]
    for w in range(n):
        rx[w] = D[x, w]
        ry[w] = D[y, w]
    for s in range(n):
        dxs = rx[s]
        dys = ry[s]
        if dxs == inf or dys == inf:
            continue  # another component: nothing there uses x--y
        if dxs + 1 == dys:
            near = x
            far = y
        elif dys + 1 == dxs:
            near = y
            far = x
        else:
            continue  # the edge joins two vertices at the same distance: no shortest path from s uses it
        row = D[s]
        # 1. who loses every shortest path: BFS over the DAG below `far`, expanding only lost vertices.
        #    A vertex keeps its distance iff a neighbour one level up keeps its own; when a vertex is
        #    first reached all of that level is already decided, because lost vertices are queued
        #    level by level.
        count = 0
        lvl = np.int64(row[far])
        kept = False
        for i in range(nbc[far]):
            w = nbr[far, i]
            if w != near and np.int64(row[w]) + 1 == lvl:
                kept = True
                break
        if kept:
            continue
        flag[far] = 1
        order[0] = far
        count = 1
        head = 0
        tested_end = 0  # `queue` doubles as the list of tested-and-kept vertices, reset below
        while head < count:
            w = order[head]
            head += 1
            lw = np.int64(row[w]) + 1
            for i in range(nbc[w]):
                v = nbr[w, i]
                if flag[v] != 0 or _skip(w, v, x, y) or np.int64(row[v]) != lw:
                    continue
                kept = False
                for j in range(nbc[v]):
                    p = nbr[v, j]
                    if flag[p] != 1 and not _skip(v, p, x, y) and np.int64(row[p]) + 1 == lw:
                        kept = True
                        break
                if kept:
                    flag[v] = 2
                    queue[tested_end] = v
                    tested_end += 1
                else:
                    flag[v] = 1
                    order[count] = v
                    count += 1
        for i in range(tested_end):
            flag[queue[i]] = 0
        # 2. new distances: boundary estimates through vertices that kept theirs, then a BFS
        #    among the lost ones that merges the estimates (sorted) with its FIFO queue.
        for i in range(count):
            v = order[i]
            best = _BIG
            for j in range(nbc[v]):
                p = nbr[v, j]
                if flag[p] != 1 and not _skip(v, p, x, y):
                    dp = np.int64(row[p])
                    if dp != inf and dp + 1 < best:
                        best = dp + 1
            nd[v] = best
        # counting sort of the estimates (they span a few levels), into `srt`
        lo = _BIG
        hi = -1
        for i in range(count):
            e = nd[order[i]]
            if e < _BIG:
                lo = min(lo, e)
                hi = max(hi, e)
        nsorted = 0
        if hi >= 0:
            for k in range(hi - lo + 2):
                cnt[k] = 0
            for i in range(count):
                e = nd[order[i]]
                if e < _BIG:
                    cnt[e - lo + 1] += 1
            for k in range(1, hi - lo + 2):
                cnt[k] += cnt[k - 1]
            for i in range(count):
                v = order[i]
                e = nd[v]
                if e < _BIG:
                    srt[cnt[e - lo]] = v
                    cnt[e - lo] += 1
                    nsorted += 1
            for k in range(hi - lo + 2):
                cnt[k] = 0
        qh = 0
        qt = 0
        p_i = 0
        while p_i < nsorted or qh < qt:
            if qh < qt and (p_i >= nsorted or nd[queue[qh]] <= nd[srt[p_i]]):
                v = queue[qh]
                qh += 1
            else:
                v = srt[p_i]
                p_i += 1
            if flag[v] != 1:
                continue  # settled already (flag 3 below)
            dv = nd[v]
            flag[v] = 3
            for j in range(nbc[v]):
                w = nbr[v, j]
                if flag[w] == 1 and not _skip(v, w, x, y) and dv + 1 < nd[w]:
                    nd[w] = dv + 1
                    queue[qt] = w
                    qt += 1
        # 3. write the row, count each changed unordered pair once (from its smaller end)
        for i in range(count):
            v = order[i]
            old = np.int64(row[v])
            if flag[v] == 3:
                new = nd[v]
                row[v] = new
                if s < v:
                    hist[old] -= 1
                    hist[new] += 1
            else:
                row[v] = inf
                if s < v:
                    hist[old] -= 1
                    hist[infbin] += 1
            flag[v] = 0
            nd[v] = 0
    for w in range(n):
        rx[w] = 0
        ry[w] = 0
        queue[w] = 0
        order[w] = 0
        srt[w] = 0


# --------------------------------------------------------------------------- removal: bit-parallel


@nb.njit(cache=True)
def remove_edge_bitparallel(D, nbr, nbc, x, y, inf, hist):
    """Remove edge x--y in place by rerunning the bit-parallel BFS from the affected sources only.

    The affected sources are those with ``|d(s,x) - d(s,y)| = 1``; each gets
    one bit, so the sweep costs ``ceil(affected / 64)`` words per vertex and
    level instead of ``ceil(n / 64)``.  Rows are rewritten and the histogram
    updated from the old/new difference (each unordered pair once).
    """
    n = D.shape[0]
    infbin = hist.shape[0] - 1
    src = np.empty(n, np.int64)
    ns = 0
    for s in range(n):
        a = np.int64(D[x, s])
        b = np.int64(D[y, s])
        if a != inf and b != inf and (a - b == 1 or b - a == 1):
            src[ns] = s
            ns += 1
    if ns == 0:
        return
    wc = (ns + 63) // 64
    visited = np.zeros((n, wc), np.uint64)
    frontier = np.zeros((n, wc), np.uint64)
    nxt = np.zeros((n, wc), np.uint64)
    acc = np.zeros(wc, np.uint64)
    newd = np.full((ns, n), _BIG, np.int64)
    for k in range(ns):
        s = src[k]
        bit = np.uint64(1) << np.uint64(k & 63)
        visited[s, k >> 6] |= bit
        frontier[s, k >> 6] |= bit
        newd[k, s] = 0
    level = 0
    while True:
        level += 1
        count = 0
        for v in range(n):
            for w in range(wc):
                acc[w] = 0
            for i in range(nbc[v]):
                u = nbr[v, i]
                if _skip(v, u, x, y):
                    continue
                for w in range(wc):
                    acc[w] |= frontier[u, w]
            for w in range(wc):
                new = acc[w] & ~visited[v, w]
                nxt[v, w] = new
                visited[v, w] |= new
                if new:
                    count += popcount64(new)
                    bits = new
                    while bits:
                        t = trailing_zeros64(bits)
                        newd[w * 64 + t, v] = level
                        bits &= bits - np.uint64(1)
        if count == 0:
            break
        frontier, nxt = nxt, frontier
    is_src = np.zeros(n, np.bool_)
    for k in range(ns):
        is_src[src[k]] = True
    for k in range(ns):
        s = src[k]
        row = D[s]
        for v in range(n):
            nv = newd[k, v]
            old = np.int64(row[v])
            if nv == _BIG:
                nv = inf
            if nv != old:
                # a changed pair has both ends among the sources; count it from the smaller end
                if s < v:
                    hist[old if old != inf else infbin] -= 1
                    hist[nv if nv != inf else infbin] += 1
                row[v] = nv


# --------------------------------------------------------------------------- additions


@nb.njit(cache=True)
def addition_savings(D, x, y, level):
    """Hops saved by adding x--y to a connected graph, and shortened pairs at distance ``level``.

    Each shortened unordered pair is counted once, as (u on x's side, v on
    y's side): u at least two hops closer to x than to y.  One contiguous,
    vectorisable pass per such row.  ``level < 0`` skips the level count.
    """
    n = D.shape[0]
    rx = D[x]
    ry = D[y]
    saved = np.int64(0)
    at_level = np.int64(0)
    for u in range(n):
        a = np.int32(rx[u]) + np.int32(1)
        if a < np.int32(ry[u]):
            row = D[u]
            s = np.int32(0)
            if level >= 0:
                c = np.int32(0)
                for v in range(n):
                    t = np.int32(row[v]) - a - np.int32(ry[v])
                    s += max(t, np.int32(0))
                    c += np.int32((t > 0) & (np.int32(row[v]) == level))
                at_level += c
            else:
                for v in range(n):
                    t = np.int32(row[v]) - a - np.int32(ry[v])
                    s += max(t, np.int32(0))
            saved += s
    return saved, at_level


@nb.njit(cache=True)
def addition_histogram_delta(D, x, y, inf, dh):
    """``dh`` (zeroed by the caller) receives the pair-histogram change of adding x--y; any graph."""
    n = D.shape[0]
    _add_candidate_delta(D, x, y, inf, dh.shape[0] - 1, dh, np.empty(n, np.int64), np.empty(n, np.int64),
                         np.empty(n, np.int64), np.empty(n, np.int64))


@nb.njit(cache=True)
def add_edge_inplace(D, x, y, inf, hist):
    """Add edge x--y: update D and the histogram in place (serial; connected graphs take the row kernel)."""
    if hist[hist.shape[0] - 1] == 0:
        _apply_edge_rows_serial(D, x, y, hist)
    else:
        _apply_edge(D, x, y, inf, hist, hist.shape[0] - 1)


@nb.njit(cache=True)
def histogram_summary(hist):
    """(total distance, unreachable pairs, largest finite distance, pairs at it) of a pair histogram."""
    infbin = hist.shape[0] - 1
    total = np.int64(0)
    top = 0
    for k in range(infbin):
        if hist[k] > 0:
            total += k * hist[k]
            top = k
    return total, hist[infbin], top, hist[top]


# --------------------------------------------------------------------------- Python API


def padded_adjacency(g: Graph, width: int) -> tuple[np.ndarray, np.ndarray]:
    """``(nbr, nbc)``: neighbours of v are ``nbr[v, :nbc[v]]``; room for ``width`` per vertex."""
    if width < g.max_degree:
        raise ValueError(f"width {width} is below the graph's maximum degree {g.max_degree}")
    nbr = np.full((g.n, max(width, 1)), -1, np.int32)
    nbc = np.zeros(g.n, np.int32)
    for u, v in g.edges.tolist():
        nbr[u, nbc[u]] = v
        nbc[u] += 1
        nbr[v, nbc[v]] = u
        nbc[v] += 1
    return nbr, nbc


class DynamicDistances(HistogramMetrics):
    """Exact distance matrix and pair histogram of a graph that gains and loses edges.

    ``max_distance`` bounds every distance the graph may reach (default
    ``n - 1``, always safe); it picks the matrix dtype (uint8 below 255) and
    the histogram length.  ``width`` is the largest degree the graph may
    reach (default: n - 1).

    >>> from hopbench.harness.graphs.topologies import parse_spec
    >>> dd = DynamicDistances(parse_spec("ring:8"))
    >>> dd.remove_edge(0, 1); dd.diameter
    7.0
    """

    METHODS = ("repair", "bitparallel")

    def __init__(self, g: Graph, *, max_distance: int | None = None, width: int | None = None) -> None:
        n = g.n
        bound = n - 1 if max_distance is None else int(max_distance)
        self.D = distance_matrix(g, dtype=distance_dtype(max(bound, 1)))
        self.inf = int(np.iinfo(self.D.dtype).max)
        finite = self.D[self.D != self.inf]
        if finite.size and int(finite.max()) > bound:
            raise ValueError(f"the graph already has a distance above max_distance={bound}")
        self.hist = _pair_histogram(self.D, self.inf, bound + 1)
        self.nbr, self.nbc = padded_adjacency(g, n - 1 if width is None else int(width))
        self._ws = workspace(n)

    @property
    def total(self) -> int:  # type: ignore[override]  (derived here; DistanceState keeps a running sum)
        return int(np.dot(np.arange(self.hist.shape[0] - 1, dtype=np.int64), self.hist[:-1]))

    def has_edge(self, x: int, y: int) -> bool:
        return bool(np.any(self.nbr[x, :self.nbc[x]] == y))

    def graph(self) -> Graph:
        """The current graph."""
        edges = [(u, int(v)) for u in range(self.n) for v in self.nbr[u, :self.nbc[u]] if u < v]
        return Graph(self.n, np.asarray(edges, np.int64).reshape(-1, 2))

    def add_edge(self, x: int, y: int) -> None:
        """Add x--y (it must not be an edge yet)."""
        x, y = int(x), int(y)
        if x == y or self.has_edge(x, y):
            raise ValueError(f"({x}, {y}) is a self-loop or already an edge")
        if self.nbc[x] >= self.nbr.shape[1] or self.nbc[y] >= self.nbr.shape[1]:
            raise ValueError("adjacency width exceeded; construct with a larger width")
        add_edge_inplace(self.D, x, y, self.inf, self.hist)
        for a, b in ((x, y), (y, x)):
            self.nbr[a, self.nbc[a]] = b
            self.nbc[a] += 1

    def remove_edge(self, x: int, y: int, *, method: str = "repair") -> None:
        """Remove x--y (it must be an edge) by the ``repair`` or the ``bitparallel`` kernel."""
        x, y = int(x), int(y)
        if not self.has_edge(x, y):
            raise ValueError(f"({x}, {y}) is not an edge")
        if method == "repair":
            remove_edge_repair(self.D, self.nbr, self.nbc, x, y, self.inf, self.hist, self._ws)
        elif method == "bitparallel":
            remove_edge_bitparallel(self.D, self.nbr, self.nbc, x, y, self.inf, self.hist)
        else:
            raise ValueError(f"unknown removal method {method!r}; use one of {', '.join(self.METHODS)}")
        for a, b in ((x, y), (y, x)):
            row = self.nbr[a]
            k = int(np.flatnonzero(row[:self.nbc[a]] == b)[0])
            row[k] = row[self.nbc[a] - 1]
            row[self.nbc[a] - 1] = -1
            self.nbc[a] -= 1

    def copy(self) -> "DynamicDistances":
        out = object.__new__(DynamicDistances)
        out.D = self.D.copy()
        out.inf = self.inf
        out.hist = self.hist.copy()
        out.nbr = self.nbr.copy()
        out.nbc = self.nbc.copy()
        out._ws = workspace(self.n)
        return out


__all__ = ["DynamicDistances", "add_edge_inplace", "addition_histogram_delta", "addition_savings",
           "histogram_summary", "padded_adjacency", "remove_edge_bitparallel", "remove_edge_repair", "workspace"]
