"""All minimal legal routes between the nodes of a subset.

For every ordered pair (s, d) of distinct subset nodes, :class:`CandidateRoutes`
lists every direction sequence of length ``dist(s, d)`` that walks from s to d
on existing channels and is spelled by some path of the routing graph (or, for
``rules = "minimal"``, every shortest walk).  Routes pass through any node.

Enumeration is one depth-first search per source over the *minimal cone*
(each step must move one hop further from the source) while simulating the
routing-graph automaton, so distinct direction sequences are counted once even
when several RG paths spell them.  The cost is the number of minimal routes
times their length; on an Angara torus (2..8 per dimension) a pair has at most
a few dozen minimal routes, so this is cheap up to a few hundred nodes.

Used by: the uniqueness stage of ``angara-sssp`` (pairs with a single minimal
route), the genes of ``angara-ga``, and the channel set C of the metrics
(channels lying on at least one minimal route between subset nodes).
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

from collections.abc import Callable

import numba as nb
import numpy as np

from hopbench.harness.problems.routing.graph import MAX_LIVE, RoutingGraph, _advance


class Interrupted(Exception):
    """The enumeration's ``should_stop`` said stop (a solver's time budget ran out): no partial list."""


@nb.njit(cache=True)
def _enumerate(nodes, si_lo, si_hi, routes, steps, sub_index, neighbor, dist, rules, out_pair, out_off, out_dirs,
               n, n3, nxt, last, single, ext_fs, ext_ls):
    """DFS over minimal prefixes from the subset nodes ``si_lo:si_hi``, appending after ``routes`` routes
    and ``steps`` steps already written; returns the new (routes, steps).

    Routes are written while they fit in the output arrays (and counted
    beyond): ``out_pair[r]`` is the pair index ``si * (m - 1) + di - (di > si)``,
    ``out_dirs[out_off[r]:out_off[r+1]]`` the directions.  Routes of one
    source come in lexicographic direction order.
    """
    cap_routes = out_pair.shape[0]
    cap_steps = out_dirs.shape[0]
    m = nodes.shape[0]
    nd = 2 * n
    maxd = 0
    for si in range(si_lo, si_hi):  # routes of these sources only: a call per chunk must not scan all N^2
        for b in range(dist.shape[1]):
            if dist[nodes[si], b] > maxd:
                maxd = dist[nodes[si], b]
    node_at = np.empty(maxd + 1, np.int64)
    next_dir = np.empty(maxd + 1, np.int64)
    live = np.empty((maxd + 1, MAX_LIVE), np.int64)
    nlive = np.empty(maxd + 1, np.int64)
    path = np.empty(maxd + 1, np.int64)
    new = np.empty(MAX_LIVE, np.int64)
    buf = np.empty(4, np.int64)
    for si in range(si_lo, si_hi):
        src = nodes[si]
        depth = 0
        node_at[0] = src
        next_dir[0] = 0
        live[0, 0] = 0
        nlive[0] = 1
        while depth >= 0:
            d = next_dir[depth]
            if d >= nd:
                depth -= 1
                continue
            next_dir[depth] = d + 1
            x = node_at[depth]
            y = neighbor[x, d]
            if y < 0 or dist[src, y] != depth + 1:
                continue
            if rules:
                k = _advance(live[depth], nlive[depth], d, x, n, n3, nxt, last, single, ext_fs, ext_ls, new, buf)
                if k == 0:
                    continue
                for i in range(k):
                    live[depth + 1, i] = new[i]
                nlive[depth + 1] = k
            path[depth] = d
            depth += 1
            node_at[depth] = y
            next_dir[depth] = 0
            di = sub_index[y]
            if di >= 0:
                if routes < cap_routes and steps + depth <= cap_steps:
                    out_pair[routes] = si * (m - 1) + di - (1 if di > si else 0)
                    out_off[routes] = steps
                    for t in range(depth):
                        out_dirs[steps + t] = path[t]
                routes += 1
                steps += depth
    if routes < out_off.shape[0]:
        out_off[routes] = steps
    return routes, steps


@nb.njit(cache=True)
def _group_by_pair(pair, off, dirs, total, pair_ptr, out_off, out_dirs):
    """Routes ``0:total`` reordered by pair (stable), given each pair's first slot ``pair_ptr``."""
    slot = pair_ptr[:-1].copy()
    where = np.empty(total, np.int64)
    for r in range(total):  # the new position of every route
        where[r] = slot[pair[r]]
        slot[pair[r]] += 1
    length = np.empty(total, np.int64)
    for r in range(total):
        length[where[r]] = off[r + 1] - off[r]
    for k in range(total):
        out_off[k + 1] = out_off[k] + length[k]
    for r in range(total):
        t = out_off[where[r]]
        for a in range(off[r], off[r + 1]):
            out_dirs[t] = dirs[a]
            t += 1


@nb.njit(cache=True)
def _route_channels(srcs, offsets, dirs, neighbor, nd):
    """Channel ids along each route (same layout as ``dirs``)."""
    out = np.empty(dirs.shape[0], np.int64)
    for r in range(srcs.shape[0]):
        x = srcs[r]
        for t in range(offsets[r], offsets[r + 1]):
            out[t] = x * nd + dirs[t]
            x = neighbor[x, dirs[t]]
    return out


def route_channels(neighbor: np.ndarray, srcs: np.ndarray, offsets: np.ndarray, dirs: np.ndarray) -> np.ndarray:
    """Channel ids of every step of a batch of (valid) routes."""
    return _route_channels(np.asarray(srcs, np.int64), np.asarray(offsets, np.int64),
                           np.asarray(dirs, np.int64), neighbor, neighbor.shape[1])


class CandidateRoutes:
    """Every minimal legal route of every ordered subset pair, grouped by pair.

    Attributes
    ----------
    pair_ptr:
        ``(P + 1,)``: routes of pair p are ``pair_ptr[p]:pair_ptr[p+1]``.
    offsets, dirs, channels:
        route r's directions / channel ids are ``dirs[offsets[r]:offsets[r+1]]``.
    counts:
        routes per pair.
    """

    def __init__(self, graph: RoutingGraph, nodes: np.ndarray, *, rules: bool = True,
                 should_stop: Callable[[], bool] | None = None) -> None:
        net = graph.net
        nodes = np.asarray(nodes, dtype=np.int64)
        m = len(nodes)
        sub_index = np.full(net.num_nodes, -1, dtype=np.int64)
        sub_index[nodes] = np.arange(m)
        dist = net.distance
        args = (net.neighbor, dist, rules)
        P = m * (m - 1)
        # a generous guess (pairs have ~1-3 minimal routes on Angara tori); the arrays grow when it is
        # too small, and the chunk that did not fit is enumerated again
        cap = 3 * P + 64
        cap_steps = cap * max(1, int(dist.max()))
        pair = np.empty(cap, np.int64)
        off = np.empty(cap + 1, np.int64)
        dirs = np.empty(cap_steps, np.int8)
        # sources per compiled call between two polls of ``should_stop`` (8x8x8x2: ~1 ms a source)
        chunk = m if should_stop is None else 32
        total = steps = 0
        lo = 0
        while lo < m:
            if should_stop is not None and should_stop():
                raise Interrupted(f"enumeration stopped after {lo} of {m} sources")
            hi = min(m, lo + chunk)
            t2, s2 = _enumerate(nodes, lo, hi, total, steps, sub_index, *args, pair, off, dirs, *graph.tables)
            if t2 > cap or s2 > cap_steps:
                cap, cap_steps = max(t2, 2 * cap), max(s2, 2 * cap_steps)
                pair = np.concatenate([pair[:total], np.empty(cap - total, np.int64)])
                off = np.concatenate([off[:total + 1], np.empty(cap - total, np.int64)])
                dirs = np.concatenate([dirs[:steps], np.empty(cap_steps - steps, np.int8)])
                continue
            total, steps = t2, s2
            lo = hi
        off[total] = steps
        # group by pair, stably (keeps the lexicographic order within a pair): a counting sort in one
        # compiled pass; argsort + numpy gathers took 0.8 s and three 17-million-step int64 arrays on 8x8x8x2
        self.counts = np.bincount(pair[:total], minlength=P).astype(np.int64)
        self.pair_ptr = np.zeros(P + 1, np.int64)
        np.cumsum(self.counts, out=self.pair_ptr[1:])
        self.offsets = np.zeros(total + 1, np.int64)
        self.dirs = np.empty(steps, np.int8)
        _group_by_pair(pair, off, dirs, total, self.pair_ptr, self.offsets, self.dirs)
        if (self.counts == 0).any():  # pragma: no cover - a DOR route always exists
            p = int(np.flatnonzero(self.counts == 0)[0])
            raise RuntimeError(f"pair #{p} has no minimal legal route")
        src_of_pair = np.repeat(nodes, m - 1)
        self.route_src = np.repeat(src_of_pair, self.counts)
        self.channels = _route_channels(self.route_src, self.offsets, self.dirs, net.neighbor, net.ndir)
        self.num_pairs = P

    @property
    def num_routes(self) -> int:
        return int(self.offsets.shape[0] - 1)

    def routes_of(self, p: int) -> list[list[int]]:
        """The direction lists of pair p's candidates."""
        return [self.dirs[self.offsets[r]:self.offsets[r + 1]].astype(int).tolist()
                for r in range(self.pair_ptr[p], self.pair_ptr[p + 1])]

    def channel_mask(self, num_slots: int) -> np.ndarray:
        """Channels lying on at least one candidate route."""
        mask = np.zeros(num_slots, dtype=bool)
        mask[self.channels] = True
        return mask
