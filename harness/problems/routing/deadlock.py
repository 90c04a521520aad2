"""Deadlock freedom of a routing table: its channel dependency graph (CDG).

A route that leaves channel c1 for channel c2 makes c2 a dependency of c1; the
table's CDG holds one edge per such consecutive pair of any route (Dally and
Seitz).  Angara uses the bubble flow-control rule inside every ring, so a
cycle made only of *same-direction* steps (a packet going round one ring) is
not a deadlock; every other cycle is.  The check is therefore:

    no cycle of the CDG contains a turn (an edge between channels of
    different directions),

equivalently: no turn edge has both ends in one strongly connected component.
This is the condition Theorem 2 of Mukosey et al. 2021 maintains for the routing graph,
so every table routed in the (extended) routing graph passes it; tables built
by other means (``rules = "minimal"``) may not.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

from collections import deque

import numba as nb
import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components


@nb.njit(cache=True)
def _loads_and_dependencies(srcs, offsets, dirs, neighbor, loads, dep):
    """One walk over every (valid) route: ``loads[c] += 1`` per step, and ``dep[c1 * nd + D2]`` set for
    every consecutive pair of channels (c1, then direction D2 from c1's head: c2 follows from c1)."""
    nd = neighbor.shape[1]
    for r in range(srcs.shape[0]):
        x = srcs[r]
        prev = -1
        for t in range(offsets[r], offsets[r + 1]):
            d = dirs[t]
            c = x * nd + d
            loads[c] += 1
            if prev >= 0:
                dep[prev * nd + d] = True
            prev = c
            x = neighbor[x, d]


def loads_and_dependencies(srcs: np.ndarray, offsets: np.ndarray, dirs: np.ndarray,
                           neighbor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """γ_c of every channel slot and the distinct dependency edges ``(c1, c2)`` of a table of valid walks.

    Memory is O(channels x directions), not O(steps): the edges are marked in a ``slots x 2n`` mask
    instead of listing a channel pair per step and sorting them (8x8x8x4: 29 million steps, 3.3 s and
    1.5 GB that way).
    """
    nslots, nd = neighbor.shape[0] * neighbor.shape[1], neighbor.shape[1]
    loads = np.zeros(nslots, dtype=np.int64)
    dep = np.zeros(nslots * nd, dtype=np.bool_)
    _loads_and_dependencies(np.asarray(srcs, np.int64), np.asarray(offsets, np.int64), dirs, neighbor, loads, dep)
    key = np.flatnonzero(dep)
    c1, d2 = key // nd, key % nd
    c2 = neighbor.ravel()[c1] * nd + d2
    return loads, np.stack([c1, c2], axis=1)


def turn_cycle(edges: np.ndarray, num_slots: int, ndir: int) -> list[int] | None:
    """A CDG cycle through a turn, as a channel list, or None when there is none.

    ``edges`` are ``(c1, c2)`` channel pairs; a channel's direction is
    ``c % ndir``.  Same-direction cycles (rings, left to the bubble rule) are
    allowed.
    """
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if not len(edges):
        return None
    graph = coo_matrix((np.ones(len(edges), dtype=np.int8), (edges[:, 0], edges[:, 1])),
                       shape=(num_slots, num_slots)).tocsr()
    _, comp = connected_components(graph, directed=True, connection="strong")
    turn = (edges[:, 0] % ndir) != (edges[:, 1] % ndir)
    bad = np.flatnonzero(turn & (comp[edges[:, 0]] == comp[edges[:, 1]]))
    if not len(bad):
        return None
    c1, c2 = (int(x) for x in edges[bad[0]])
    # shortest path c2 ~> c1 inside the component closes the cycle c1 -> c2 ~> c1
    indptr, indices = graph.indptr, graph.indices
    parent = {c2: -1}
    queue = deque([c2])
    while queue:
        u = queue.popleft()
        if u == c1:
            break
        for v in indices[indptr[u]:indptr[u + 1]].tolist():
            if v not in parent and comp[v] == comp[c1]:
                parent[v] = u
                queue.append(v)
    path = [c1]
    u = c1
    while u != c2:
        u = parent[u]
        path.append(u)
    path.reverse()  # c2 ... c1
    return [c1] + path
