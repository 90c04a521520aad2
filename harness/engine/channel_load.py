"""Channel load of minimal routing under uniform traffic: the throughput bound a shortcut set is judged by.

Every switch sends to every other switch at the same rate (uniform all-to-all traffic, one endpoint per
switch), and a packet bound for ``t`` leaves switch ``v`` on each of ``v``'s minimal next hops (the
neighbours one hop closer to ``t``) in equal shares: the even split of minimal adaptive routing, the
``min`` routing of :mod:`hopbench.harness.traffic` (whose :func:`hopbench.harness.traffic.bounds.channel_loads` gives the
same numbers from the routing tables; a test checks it).  With every switch injecting 1 flit/cycle, the
busiest directed channel carries ``L`` flits/cycle; a channel moves one flit per cycle, so no injection
rate above ``1 / L`` is sustainable under this routing -- the *throughput bound*.  Koibuchi et al. 2012
Sect. V-A note that random shortcuts can cut the hop count yet unbalance paths; ``L`` is what measures it.

The load is computed per destination (a BFS from ``t``, then the flow pushed from the farthest switches
inwards, split evenly over each switch's minimal next hops): O(n m) in all, in one numba kernel.
"""
from __future__ import annotations

import math

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)
from hopbench.harness import caps

import numba
import numpy as np

from hopbench.harness.graphs.graph import Graph

__all__ = ["channel_loads_uniform_min", "max_channel_load", "peak_of_edges", "score_added_links", "throughput_bound"]


@numba.njit(cache=True, nogil=True)
def _csr(n, edges):  # pragma: no cover - numba
    """CSR adjacency of an undirected edge list (both directions; each list in edge order)."""
    indptr = np.zeros(n + 1, np.int64)
    for i in range(edges.shape[0]):
        indptr[edges[i, 0] + 1] += 1
        indptr[edges[i, 1] + 1] += 1
    for v in range(n):
        indptr[v + 1] += indptr[v]
    fill = indptr[:-1].copy()
    indices = np.empty(indptr[n], np.int64)
    for i in range(edges.shape[0]):
        a, b = edges[i, 0], edges[i, 1]
        indices[fill[a]] = b
        fill[a] += 1
        indices[fill[b]] = a
        fill[b] += 1
    return indptr, indices


@numba.njit(cache=True, nogil=True)
def _peak_plus_edge(indptr, indices, a, b, dist, order, flow, loads, extra):  # pragma: no cover - numba
    """(busiest channel's load, total distance over ordered pairs, unreachable ordered pairs, sum of the
    squared channel loads) of the graph plus the link a--b (a < 0: none); the arrays are scratch space
    (``extra`` holds the two directions of the added link)."""
    n = indptr.shape[0] - 1
    share = 1.0 / (n - 1)
    for k in range(loads.shape[0]):
        loads[k] = 0.0
    extra[0] = 0.0
    extra[1] = 0.0
    total = 0
    unreachable = 0
    for t in range(n):
        for v in range(n):
            dist[v] = -1
        dist[t] = 0
        order[0] = t
        head, tail = 0, 1
        while head < tail:
            v = order[head]
            head += 1
            for k in range(indptr[v], indptr[v + 1]):
                w = indices[k]
                if dist[w] < 0:
                    dist[w] = dist[v] + 1
                    order[tail] = w
                    tail += 1
            if v == a or v == b:
                w = b if v == a else a
                if a >= 0 and dist[w] < 0:
                    dist[w] = dist[v] + 1
                    order[tail] = w
                    tail += 1
        unreachable += n - tail
        for i in range(tail):
            total += dist[order[i]]
        if tail < n:
            continue  # loads are meaningless once some switch cannot be reached
        for v in range(n):
            flow[v] = share
        for i in range(n - 1, 0, -1):
            v = order[i]
            hops = 0
            for k in range(indptr[v], indptr[v + 1]):
                if dist[indices[k]] == dist[v] - 1:
                    hops += 1
            on_extra = (a >= 0) and (v == a or v == b) and dist[b if v == a else a] == dist[v] - 1
            if on_extra:
                hops += 1
            part = flow[v] / hops
            for k in range(indptr[v], indptr[v + 1]):
                w = indices[k]
                if dist[w] == dist[v] - 1:
                    loads[k] += part
                    flow[w] += part
            if on_extra:
                extra[0 if v == a else 1] += part
                flow[b if v == a else a] += part
    if unreachable > 0:
        return np.inf, total, unreachable, np.inf
    peak = max(extra[0], extra[1])
    squares = extra[0] * extra[0] + extra[1] * extra[1]
    for k in range(loads.shape[0]):
        squares += loads[k] * loads[k]
        if loads[k] > peak:
            peak = loads[k]
    return peak, total, unreachable, squares


@numba.njit(cache=True, nogil=True)
def _score_candidates(indptr, indices, cu, cv, peaks, totals, unreachables, squares):  # pragma: no cover - numba
    n = indptr.shape[0] - 1
    dist = np.empty(n, np.int64)
    order = np.empty(n, np.int64)
    flow = np.empty(n)
    loads = np.empty(indices.shape[0])
    extra = np.zeros(2)
    for i in range(cu.shape[0]):
        peaks[i], totals[i], unreachables[i], squares[i] = _peak_plus_edge(indptr, indices, cu[i], cv[i], dist,
                                                                           order, flow, loads, extra)


@numba.njit(cache=True, nogil=True)
def _edges_peak(n, edges):  # pragma: no cover - numba
    indptr, indices = _csr(n, edges)
    dist = np.empty(n, np.int64)
    order = np.empty(n, np.int64)
    flow = np.empty(n)
    loads = np.empty(indices.shape[0])
    extra = np.zeros(2)
    return _peak_plus_edge(indptr, indices, -1, -1, dist, order, flow, loads, extra)


def peak_of_edges(n: int, edges: np.ndarray) -> tuple[float, int, int]:
    """``(L, total distance over ordered pairs, unreachable ordered pairs)`` of the graph with ``edges`` (an
    ``(m, 2)`` array of distinct links): one call, no Graph object (the inner loop of annealing; its size is
    the caller's to check, once, with :func:`hopbench.harness.caps.check_channel_load_work`)."""
    if n < 2:
        return 0.0, 0, 0
    peak, total, unreachable, _ = _edges_peak(n, np.ascontiguousarray(edges, dtype=np.int64).reshape(-1, 2))
    return float(peak), int(total), int(unreachable)


def score_added_links(g: Graph, cu: np.ndarray, cv: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For each candidate link ``cu[i]--cv[i]`` (not an edge of ``g``), ``g`` plus that link's busiest channel
    load, total distance (ordered pairs), unreachable ordered pairs and sum of squared channel loads
    (``inf`` where some pair is unreachable)."""
    caps.check_channel_load_work(g.n, g.m + 1)
    indptr, indices = g.csr
    k = len(cu)
    peaks, totals, unreachables, squares = np.empty(k), np.empty(k, np.int64), np.empty(k, np.int64), np.empty(k)
    if g.n >= 2 and k:
        _score_candidates(np.ascontiguousarray(indptr, dtype=np.int64), np.ascontiguousarray(indices, dtype=np.int64),
                          np.ascontiguousarray(cu, dtype=np.int64), np.ascontiguousarray(cv, dtype=np.int64),
                          peaks, totals, unreachables, squares)
    elif k:
        peaks[:], totals[:], unreachables[:], squares[:] = 0.0, 0, 0, 0.0
    return peaks, totals, unreachables, squares


def _graph_peak(g: Graph) -> tuple[float, np.ndarray]:
    """The busiest channel's load of ``g`` (``inf`` when disconnected) and every channel's load (CSR order)."""
    caps.check_channel_load_work(g.n, g.m)
    indptr, indices = g.csr
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    indices = np.ascontiguousarray(indices, dtype=np.int64)
    n = g.n
    loads = np.empty(indices.shape[0])
    peak, _, _, _ = _peak_plus_edge(indptr, indices, -1, -1, np.empty(n, np.int64), np.empty(n, np.int64),
                                    np.empty(n), loads, np.zeros(2))
    return float(peak), loads


def channel_loads_uniform_min(g: Graph) -> np.ndarray:
    """Flits/cycle on every directed channel (CSR order of ``g.csr``) when every switch injects 1 flit/cycle of
    uniform traffic routed minimally with an even split; raises ``ValueError`` on a disconnected graph."""
    if g.n < 2:
        return np.zeros(len(g.csr[1]))
    peak, loads = _graph_peak(g)
    if math.isinf(peak):
        raise ValueError("the graph is disconnected: some switch cannot reach another")
    return loads


def max_channel_load(g: Graph) -> float:
    """``L``: the busiest channel's flits/cycle per flit/cycle injected at every switch (``inf`` when the graph
    is disconnected, 0 for a single switch)."""
    if g.n < 2:
        return 0.0
    return _graph_peak(g)[0]


def throughput_bound(g: Graph) -> float:
    """``1 / L``: the highest injection rate (flits/cycle/switch) minimal routing can sustain on ``g``."""
    load = max_channel_load(g)
    return 0.0 if math.isinf(load) else (math.inf if load == 0 else 1.0 / load)
