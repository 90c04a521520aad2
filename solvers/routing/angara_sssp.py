"""``angara-sssp``: the SSSP routing-table algorithm of Mukosey et al. 2021 (Alg. 3 and 4).

1. **Unique routes.**  Pairs with a single minimal legal route (counted as
   distinct direction sequences, see :mod:`hopbench.harness.problems.routing.candidates`) get
   that route first, and their channels' weights go up.
2. **Sort and group.**  The other pairs are sorted by the number of turns of
   their routes (``dimensions crossed - 1``, the fewest turns a minimal route
   can have), then route length, then source, then destination; a group is
   one (turns, length, source).  For each group, BUILD_SSSP (Alg. 4) runs from
   the source to the group's destinations; the paths that share no channel
   with a path accepted before them in the same call (destinations in
   ascending order) are applied, their channels' weights go up by one, and
   BUILD_SSSP runs again for the rest of the group until it is empty.
   Applying non-crossing paths together gives what one-pair-at-a-time SSSP
   would: the increments of one path never touch the other's channels.

BUILD_SSSP is the paper's breadth-first search with relaxation: every
routing-graph edge weighs ``|N|^2 + load(channel)`` (|N| = subset size), the
frontier is processed level by level, a vertex of the next level takes the
smallest tentative distance over all its predecessors in the current level
(strict ``<``: the first one wins ties), and a vertex's distance is final once
its level is done.  We add two exact prunings: only vertices one hop farther
from the source at each level (the minimal cone) and only nodes lying on a
minimal path to a destination still in the group are expanded, and the search
stops after ``length`` levels.  A vertex of an earlier level is never relaxed
again, so routes are minimal even when loads sum past ``|N|^2``.

With a time budget the remaining pairs take their first candidate route once
it runs out (``extra["truncated_pairs"]``); when it runs out while the candidate
routes are still being enumerated, every pair takes its DOR route.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import time

import numba as nb
import numpy as np

from hopbench.harness.problems.routing import RoutingProblem, RoutingTable
from hopbench.harness.problems.routing.candidates import Interrupted
from hopbench.solvers.contract import register
from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.routing._router import AngaraSolver, RouterState


@nb.njit(cache=True)
def _sssp_groups(g_lo, g_hi, group_ptr, grp_src, grp_len, dst_nodes, rows, indptr, tgt, edir, S, neighbor,
                 dist, load, big, out_mat, out_len, seen, distv, parent_e, parent_u, frontier, nxt, best,
                 on_path, chan_mark, stamp0):
    """Process groups ``g_lo:g_hi`` of stage 2; returns the next stamp (BUILD_SSSP calls so far + 1)."""
    N = dist.shape[0]
    nd = neighbor.shape[1]
    stamp = stamp0
    maxk = 0
    for g in range(g_lo, g_hi):
        if group_ptr[g + 1] - group_ptr[g] > maxk:
            maxk = group_ptr[g + 1] - group_ptr[g]
    rem = np.empty(maxk, np.int64)
    keep = np.empty(maxk, np.int64)
    path = np.empty(64, np.int64)
    for g in range(g_lo, g_hi):
        src = grp_src[g]
        L = grp_len[g]
        nrem = 0
        for k in range(group_ptr[g], group_ptr[g + 1]):
            rem[nrem] = k
            nrem += 1
        begin = src * S
        while nrem > 0:
            stamp += 1
            # nodes on a minimal path src ~> some destination still in the group
            for y in range(N):
                dy = dist[src, y]
                if dy > L:
                    continue
                for a in range(nrem):
                    if dy + dist[y, dst_nodes[rem[a]]] == L:
                        on_path[y] = stamp
                        break
            # BUILD_SSSP: breadth-first search with relaxation (Alg. 4)
            seen[begin] = stamp
            distv[begin] = 0
            frontier[0] = begin
            nf = 1
            for level in range(L):
                nn = 0
                for qi in range(nf):
                    u = frontier[qi]
                    x = u // S
                    du = distv[u]
                    for e in range(indptr[u], indptr[u + 1]):
                        v = tgt[e]
                        y = v // S
                        if on_path[y] != stamp or dist[src, y] != level + 1:
                            continue
                        nd_ = du + big + load[x * nd + edir[e]]
                        if seen[v] != stamp:
                            seen[v] = stamp
                            distv[v] = nd_
                            parent_e[v] = e
                            parent_u[v] = u
                            nxt[nn] = v
                            nn += 1
                        elif nd_ < distv[v]:
                            distv[v] = nd_
                            parent_e[v] = e
                            parent_u[v] = u
                for a in range(nn):
                    frontier[a] = nxt[a]
                nf = nn
            # end(dst): the cheapest vertex of node dst in the last level (first on ties)
            for qi in range(nf):
                v = frontier[qi]
                y = v // S
                if best[y] < 0 or distv[v] < distv[best[y]]:
                    best[y] = v
            # apply the paths that cross no path accepted before them in this call
            nkeep = 0
            for a in range(nrem):
                k = rem[a]
                y = dst_nodes[k]
                v = best[y]
                t = L - 1
                crossing = False
                while v != begin:
                    e = parent_e[v]
                    u = parent_u[v]
                    c = (u // S) * nd + edir[e]
                    path[t] = c
                    if chan_mark[c] == stamp:
                        crossing = True
                    t -= 1
                    v = u
                if crossing:
                    keep[nkeep] = k
                    nkeep += 1
                    continue
                row = rows[k]
                out_len[row] = L
                for t in range(L):
                    c = path[t]
                    chan_mark[c] = stamp
                    load[c] += 1
                    out_mat[row, t] = c % nd
            for qi in range(nf):
                best[frontier[qi] // S] = -1
            for a in range(nkeep):
                rem[a] = keep[a]
            nrem = nkeep
    return stamp


def group_pairs(problem: RoutingProblem, rows: np.ndarray) -> tuple[np.ndarray, ...]:
    """Stage-2 order: sort ``rows`` by (turns, length, source, destination) and cut them into groups.

    Returns ``(sorted rows, group_ptr, group source node, group length)``.
    """
    net = problem.network
    src, dst = problem.pairs
    s, d = src[rows], dst[rows]
    crossed = (net.coords[s] != net.coords[d]).sum(axis=1)
    turns = np.maximum(crossed - 1, 0)
    length = problem.pair_distance[rows]
    order = np.lexsort((d, s, length, turns))
    rows = rows[order]
    key = np.stack([turns[order], length[order], s[order]], axis=1)
    cut = np.flatnonzero((key[1:] != key[:-1]).any(axis=1)) + 1
    group_ptr = np.concatenate([[0], cut, [len(rows)]] if len(rows) else [[0]]).astype(np.int64)
    starts = group_ptr[:-1]
    return rows, group_ptr, src[rows][starts], problem.pair_distance[rows][starts]


class SSSPRouter(RouterState):
    """One run of Alg. 3: candidate routes, loads, the routes built so far and work arrays."""

    def __init__(self, problem: RoutingProblem) -> None:
        super().__init__(problem)
        net = problem.network
        self.big = problem.num_nodes ** 2
        V = len(self.indptr) - 1
        N = net.num_nodes
        self.work = (np.zeros(V, np.int64), np.zeros(V, np.int64), np.full(V, -1, np.int64),
                     np.full(V, -1, np.int64), np.empty(V, np.int64), np.empty(V, np.int64),
                     np.full(N, -1, np.int64), np.zeros(N, np.int64), np.zeros(net.num_channel_slots, np.int64))
        self.calls = 0

    def apply_unique(self) -> np.ndarray:
        """Stage 1: route the pairs with a single candidate, add them to the loads; return the other rows."""
        cand = self.problem.candidates
        unique = np.flatnonzero(cand.counts == 1)
        self._set_candidates(unique, cand.pair_ptr[unique], add_load=True)
        return np.flatnonzero(cand.counts > 1)

    def _set_candidates(self, rows: np.ndarray, routes: np.ndarray, *, add_load: bool) -> None:
        """Give pair ``rows[i]`` candidate route ``routes[i]`` (vectorised)."""
        cand = self.problem.candidates
        starts, ends = cand.offsets[routes], cand.offsets[routes + 1]
        lengths = ends - starts
        total = int(lengths.sum())
        within = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        steps = np.repeat(starts, lengths) + within
        self.mat[np.repeat(rows, lengths), within] = cand.dirs[steps]
        self.lengths[rows] = lengths
        if add_load:
            self.load += np.bincount(cand.channels[steps], minlength=len(self.load))

    def run_groups(self, g_lo: int, g_hi: int, plan: tuple[np.ndarray, ...]) -> None:
        rows, group_ptr, gsrc, glen = plan
        net = self.problem.network
        dst = self.problem.pairs[1][rows]
        self.calls = _sssp_groups(g_lo, g_hi, group_ptr, gsrc, glen, dst, rows, self.indptr, self.tgt, self.edir,
                                  self.S, net.neighbor, net.distance, self.load, self.big, self.mat,
                                  self.lengths, *self.work, self.calls)

    def fill_first_candidates(self, rows: np.ndarray) -> None:
        """The budget ran out: the pairs ``rows`` take their first candidate."""
        self._set_candidates(rows, self.problem.candidates.pair_ptr[rows], add_load=False)


@register
class AngaraSSSP(AngaraSolver):
    """Mukosey et al.'s SSSP algorithm: unique routes first, then grouped BFS-with-relaxation batches."""

    name = "angara-sssp"
    description = ("Angara SSSP routing (Mukosey et al. 2021, Alg. 3-4): unique routes, then sorted groups routed by "
                   "BFS with relaxation in the routing graph, non-crossing batches")
    params: dict = {}

    #: groups of the first compiled call; later calls are sized to take about CALL_SECONDS between two
    #: budget checks, at most MAX_CHUNK groups
    FIRST_CHUNK = 64
    CALL_SECONDS = 0.05
    MAX_CHUNK = 1 << 16
    #: seconds per pair kept for the work after the candidate enumeration (grouping, the unique pairs, the
    #: fallback fill, validation: 0.5 s on 8x8x8x2's million pairs, twice that with both cores busy)
    FINISH_SECONDS_PER_PAIR = 1e-6

    def solve(self, problem: RoutingProblem, *, seed: int, budget: Budget, report: Reporter) -> RoutingTable:
        try:
            # the candidate routes take 1-2 s on 1,024 nodes: enumerate them under the budget
            reserve = self.FINISH_SECONDS_PER_PAIR * problem.num_pairs
            problem.candidates_within(lambda: report.should_stop() or report.remaining_time() < reserve)
        except Interrupted:
            # no candidates to fall back on: every pair takes its DOR route (valid in the RG), as BFS does
            return self.dor_table(problem, report, unique_pairs=0, sssp_calls=0)
        router = SSSPRouter(problem)
        rest = router.apply_unique()
        plan = group_pairs(problem, rest)
        ngroups = len(plan[1]) - 1
        done = 0
        chunk = self.FIRST_CHUNK
        # the fill of the pairs left and the validation come after the last call (0.3 s on 8x8x8x2)
        finish = self.FINISH_SECONDS_PER_PAIR / 2 * problem.num_pairs
        while done < ngroups:
            if report.should_stop() or report.remaining_time() < finish:
                left = plan[0][plan[1][done]:]
                router.fill_first_candidates(left)
                break
            hi = min(ngroups, done + chunk)
            start = time.perf_counter()
            router.run_groups(done, hi, plan)
            # a group's cost grows with its route length (8x8x8x2: 4,096 groups took 0.09 s at the start
            # and 0.4 s later on): size the next call to take about CALL_SECONDS
            took = max(time.perf_counter() - start, 1e-4)
            chunk = int(min(self.MAX_CHUNK, max(1, (hi - done) * self.CALL_SECONDS / took)))
            done = hi
        table = RoutingTable.from_matrix(problem, router.mat, router.lengths)
        table.extra["unique_pairs"] = int(problem.num_pairs - len(rest))
        table.extra["sssp_calls"] = int(router.calls)
        if done < ngroups:
            table.extra["truncated_pairs"] = int(len(plan[0]) - plan[1][done])
        report.count(1)
        report(table.evaluate().objective)
        return table
