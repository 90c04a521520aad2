"""``angara-bfs``: the BFS routing-table algorithm of Mukosey et al. 2021 (Alg. 1 and 2).

For one source at a time, a breadth-first search in the routing graph builds
a BFS tree from begin(source); the route to every other subset node is read
back from the tree, and every channel on a built route gets its weight (load)
increased by one.  Alg. 2 sorts the queue "by outgoing edge weights": we read
that as processing the current level's outgoing edges in ascending weight
(channel load so far), ties in queue order, so a vertex of the next level is
claimed through its lightest incoming edge.  The end vertex of a node is
reached from the first vertex of that node in the last level's order (end
edges carry no channel, so they all weigh 0).

Sources come in GET_MAX_REMOTE order (Alg. 1): start with the first subset
node, then always the unprocessed node farthest (in hops) from the last
source, the first such node on ties.

Only vertices of the *minimal cone* (one hop farther from the source at each
level) are expanded: a vertex off the cone is reached later than the cone
vertices of the same node and never lies on a shortest RG path, so the routes
are exactly those of the full BFS, at a fraction of the cost.

If the time budget runs out, the pairs of the remaining sources get DOR routes
(valid in the routing graph, so the table stays valid and deadlock-free) and
``extra["truncated_sources"]`` records how many sources were left.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import numba as nb
import numpy as np

from hopbench.harness.problems.routing import RoutingProblem, RoutingTable
from hopbench.solvers.contract import register
from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.routing._router import AngaraSolver, RouterState
from hopbench.solvers.routing.dor import dor_into_rows


@nb.njit(cache=True)
def _bfs_routes(src, si, m, dst_index, indptr, tgt, edir, S, neighbor, dist, load, out_mat, out_len,
                visited, parent_e, parent_u, order, frontier, nxt, touched, cand_e, cand_u, cand_w):
    """Alg. 2 from ``src`` (subset position ``si``): write its routes into the rows of its
    pairs, then add them to ``load``.  Work arrays come in cleared and leave cleared."""
    N = dist.shape[0]
    nd = neighbor.shape[1]
    maxlevel = 0
    for y in range(N):
        if dst_index[y] >= 0 and dist[src, y] > maxlevel:
            maxlevel = dist[src, y]
    begin = src * S
    visited[begin] = True
    ntouched = 0
    touched[ntouched] = begin
    ntouched += 1
    frontier[0] = begin
    nf = 1
    level = 0
    while level < maxlevel and nf > 0:
        nc = 0
        for qi in range(nf):
            u = frontier[qi]
            x = u // S
            for e in range(indptr[u], indptr[u + 1]):
                v = tgt[e]
                if visited[v] or dist[src, v // S] != level + 1:
                    continue
                cand_e[nc] = e
                cand_u[nc] = u
                cand_w[nc] = load[x * nd + edir[e]]
                nc += 1
        idx = np.argsort(cand_w[:nc], kind="mergesort")  # stable: ties keep queue order
        nn = 0
        for a in range(nc):
            k = idx[a]
            v = tgt[cand_e[k]]
            if visited[v]:
                continue
            visited[v] = True
            parent_e[v] = cand_e[k]
            parent_u[v] = cand_u[k]
            order[v] = nn
            nxt[nn] = v
            nn += 1
            touched[ntouched] = v
            ntouched += 1
        for a in range(nn):
            frontier[a] = nxt[a]
        nf = nn
        level += 1
    for y in range(N):
        di = dst_index[y]
        if di < 0 or y == src:
            continue
        best = -1
        for s in range(1, S):
            v = y * S + s
            if visited[v] and (best < 0 or order[v] < order[best]):
                best = v
        row = si * (m - 1) + di - (1 if di > si else 0)
        L = dist[src, y]
        out_len[row] = L
        v = best
        t = L - 1
        while v != begin:
            out_mat[row, t] = edir[parent_e[v]]
            t -= 1
            v = parent_u[v]
    # weights +1 along the built paths (Alg. 2, after the tree is complete)
    for y in range(N):
        di = dst_index[y]
        if di < 0 or y == src:
            continue
        row = si * (m - 1) + di - (1 if di > si else 0)
        x = src
        for t in range(out_len[row]):
            d = out_mat[row, t]
            load[x * nd + d] += 1
            x = neighbor[x, d]
    for a in range(ntouched):
        visited[touched[a]] = False
        order[touched[a]] = -1


def max_remote_order(problem: RoutingProblem) -> list[int]:
    """Subset positions in GET_MAX_REMOTE order (Alg. 1)."""
    nodes = problem.node_array
    dist = problem.network.distance[np.ix_(nodes, nodes)].astype(np.int64)
    m = len(nodes)
    done = np.zeros(m, dtype=bool)
    cur = 0
    out = [0]
    done[0] = True
    for _ in range(m - 1):
        d = np.where(done, -1, dist[cur])
        cur = int(np.argmax(d))  # first of the farthest
        done[cur] = True
        out.append(cur)
    return out


class BFSRouter(RouterState):
    """State of one run of Alg. 1: loads, routes so far, work arrays."""

    def __init__(self, problem: RoutingProblem) -> None:
        super().__init__(problem)
        net = problem.network
        self.dist = net.distance
        m = problem.num_nodes
        self.m = m
        self.dst_index = np.full(net.num_nodes, -1, dtype=np.int64)
        self.dst_index[problem.node_array] = np.arange(m)
        V, E = len(self.indptr) - 1, len(self.tgt)
        self.work = (np.zeros(V, dtype=np.bool_), np.full(V, -1, np.int64), np.full(V, -1, np.int64),
                     np.full(V, -1, np.int64), np.empty(V, np.int64), np.empty(V, np.int64),
                     np.empty(V + 1, np.int64), np.empty(E, np.int64), np.empty(E, np.int64),
                     np.empty(E, np.int64))

    def route_source(self, si: int) -> None:
        src = int(self.problem.node_array[si])
        _bfs_routes(src, si, self.m, self.dst_index, self.indptr, self.tgt, self.edir, self.S,
                    self.problem.network.neighbor, self.dist, self.load, self.mat, self.lengths, *self.work)


def fill_with_dor(problem: RoutingProblem, mat: np.ndarray, lengths: np.ndarray, rows: np.ndarray) -> None:
    """Give the pairs ``rows`` their DOR routes (the budget ran out before they were routed)."""
    if not len(rows):
        return
    dor_into_rows(problem, mat, lengths, rows)


@register
class AngaraBFS(AngaraSolver):
    """Mukosey et al.'s BFS algorithm: per-source BFS trees in the routing graph, loads as edge weights."""

    name = "angara-bfs"
    description = "Angara BFS routing (Mukosey et al. 2021, Alg. 1-2): per-source BFS in the routing graph, weight-sorted queue"
    params: dict = {}
    #: see solve
    FINISH_SECONDS_PER_PAIR = 0.6e-6

    def solve(self, problem: RoutingProblem, *, seed: int, budget: Budget, report: Reporter) -> RoutingTable:
        router = BFSRouter(problem)
        sources = max_remote_order(problem)
        left = 0
        # seconds kept for the DOR fill of the sources left and the validation (8x8x8x8's 16.8 million pairs:
        # about 5 s; 8x8x8x2's million: 0.3 s), twice that for busy cores
        finish = self.FINISH_SECONDS_PER_PAIR * problem.num_pairs
        for k, si in enumerate(sources):
            if report.should_stop() or report.remaining_time() < finish:
                left = len(sources) - k
                m = problem.num_nodes
                rows = (np.asarray(sources[k:], dtype=np.int64)[:, None] * (m - 1) + np.arange(m - 1)).ravel()
                fill_with_dor(problem, router.mat, router.lengths, rows)
                break
            router.route_source(si)
        table = RoutingTable.from_matrix(problem, router.mat, router.lengths)
        if left:
            table.extra["truncated_sources"] = left
        report.count(1)
        report(table.evaluate().objective)
        return table
