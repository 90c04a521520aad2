"""Over-build, then delete: annealing's first graph for an order n without a useful rotational symmetry.

The swap mode anneals far better and faster with small orbits (v -> v + n/g, one BFS per orbit;
see :data:`hopbench.solvers.shortcut._golf.AUTO_ORBITS_PER_BIT`), but some orders have none: an odd n at an
odd degree (Graph Golf's (4855, 15): every orbit would have an odd number of ports) or n = 2 x prime
((1726, 30): orbits of 863 vertices).  As ODP's SA does with ``-g`` / ``-v`` (n = g x base + v),
this module anneals a symmetric graph on n + v vertices, v >= 1 the fewest that give one, then
deletes v vertices and joins their orphaned neighbours in pairs (one port stays free when their
number is odd).  Several deletions and pairings are measured exactly and the best is kept; pairs
that the deletion pushed past the symmetric graph's diameter are mended by swaps aimed at them
(:func:`mend`); the caller (annealing) then polishes the graph without symmetry, as it does the
polarity start.

Why not a symmetry with a fixed point or a lift with one odd orbit: both leave the kernel's orbit
arithmetic (every orbit of g vertices, every vertex's ports filled the same way) for one pair.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from hopbench.harness.engine.distances import distance_matrix, summary
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.shortcut import _golf

#: most vertices built beyond n and then deleted: each deletion leaves up to cap ports to pair, and a
#: pairing lengthens a few paths, so only a handful are worth it
MAX_EXTRA = 8
#: orders up to this are left alone: there one word holds every BFS source, so a symmetry saves no work
MIN_N = 1025
#: an order whose automatic symmetry leaves more representatives than this (more than one 64-bit
#: word of BFS sources) is over-built when n + v has one with at most this many
MAX_REPRESENTATIVES = 64
#: share of the run (time or evaluations) given to the symmetric graph on n + v vertices; the rest
#: goes to the repair and the polish without symmetry, which at n = 4855 makes a few hundred moves a
#: second against thousands with orbits
SHARE = 0.8
#: deletions + pairings measured (each one exact all-pairs evaluation, about 0.1 s at (4855, 15))
REPAIR_TRIES = 16
#: most exact evaluations (a distance matrix each, 0.3 to 0.8 s at (4855, 15) on the loaded machine) spent
#: mending the pairs that the deletion left beyond the symmetric graph's diameter, and the candidate swaps
#: tried per far pair.  Measured on a (4856, 15) graph of diameter 4 (60 s, seed 1): deleting one vertex
#: and pairing its neighbours at random left 1 to 9 pairs at distance 5 in 8 of 8 draws, and on the
#: 300 s run all 16 draws kept some: the diameter needs the mending
MEND_EVALUATIONS = 48
MEND_CANDIDATES = 6
#: the mending keeps an n x n byte matrix: not above this order
MEND_MAX_N = 10_000
#: below this many seconds (with a time budget) there is no over-build: the symmetric stage, the
#: repair and the polish each need some
MIN_SECONDS = 10.0


def plan(problem: ShortcutProblem) -> tuple[int, int] | None:
    """(n + v, g): the order to build and its automatic symmetry, or None when the problem is not an
    order/degree problem above :data:`MIN_N` that lacks a symmetry of at most
    :data:`MAX_REPRESENTATIVES` representatives while n + v (v <= :data:`MAX_EXTRA`) has one."""
    n, cap = problem.n, int(problem.degree_cap)
    if problem.base.m != 0 or n < MIN_N or cap < 3 or problem.budget < n * cap // 2:
        return None
    if n // _golf.auto_symmetry(n, cap) <= MAX_REPRESENTATIVES:
        return None
    for extra in range(1, MAX_EXTRA + 1):
        g = _golf.auto_symmetry(n + extra, cap)
        if g > 1 and (n + extra) // g <= MAX_REPRESENTATIVES:
            return n + extra, g
    return None


def delete_and_pair(n_big: int, edges: np.ndarray, victims: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The graph ``edges`` on ``n_big`` vertices without ``victims``, relabelled 0 .. n_big - len(victims) - 1
    in order, with the victims' surviving neighbours joined in random pairs (no loop, no parallel edge;
    a port that finds no partner stays free)."""
    e = np.asarray(edges, np.int64).reshape(-1, 2)
    dead = np.zeros(n_big, bool)
    dead[victims] = True
    hit = dead[e[:, 0]] | dead[e[:, 1]]
    orphans = np.concatenate([e[hit & ~dead[e[:, 0]], 0], e[hit & ~dead[e[:, 1]], 1]])
    kept = e[~hit]
    present = set((kept[:, 0] * n_big + kept[:, 1]).tolist()) | set((kept[:, 1] * n_big + kept[:, 0]).tolist())
    open_ = list(rng.permutation(orphans))
    added = []
    while len(open_) > 1:
        a = int(open_.pop())
        for i in range(len(open_) - 1, -1, -1):
            b = int(open_[i])
            if b != a and a * n_big + b not in present:
                open_.pop(i)
                present.update((a * n_big + b, b * n_big + a))
                added.append((a, b))
                break
    out = np.concatenate([kept, np.asarray(added, np.int64).reshape(-1, 2)])
    relabel = np.cumsum(~dead) - 1
    return relabel[out]


def _victims(n_big: int, count: int, edges: np.ndarray, rng: np.random.Generator, first: int) -> np.ndarray:
    """``first`` and count - 1 more random vertices, none adjacent to another (each deletion then
    orphans a full set of ports, which the pairing gives back)."""
    e = np.asarray(edges, np.int64)
    chosen = [first]
    blocked = {first}
    while len(chosen) < count:
        v = int(rng.integers(n_big))
        if v in blocked:
            continue
        chosen.append(v)
        blocked.add(v)
        blocked.update(e[e[:, 0] == v, 1].tolist())
        blocked.update(e[e[:, 1] == v, 0].tolist())
    return np.asarray(chosen, np.int64)


class _Share(Reporter):
    """A reporter for the symmetric stage: its own budget, and it stops when the run's does."""

    def __init__(self, budget: Budget, parent: Reporter) -> None:
        super().__init__(budget)
        self.parent = parent

    def should_stop(self) -> bool:
        return self.parent.should_stop() or super().should_stop()


def overbuilt_start(problem: ShortcutProblem, target: tuple[int, int], solve: Callable[..., Any],
                    rng: np.random.Generator, budget: Budget, report: Reporter) -> tuple[np.ndarray | None, dict]:
    """The repaired graph's edges and what was done (for ``extra``); the first repair is measured even
    when the time is up, so there always is one.

    ``solve(problem, seed, budget, report)`` anneals the symmetric graph on ``target`` = (n + v, g)
    (annealing's own swap mode with ``symmetry=g``); it gets :data:`SHARE` of what is left of the
    run's budget, and its evaluations are counted on ``report``."""
    n, cap = problem.n, int(problem.degree_cap)
    n_big, g = target
    spec = f"empty:{n_big}"
    big = ShortcutProblem(parse_spec(spec), cap, n_big * cap // 2, problem.objective, base_spec=spec)
    left_time = report.remaining_time()
    sub = Budget(time_s=None if budget.time_s is None else max(1e-3, SHARE * left_time),
                 evaluations=None if budget.evaluations is None
                 else max(1, int(SHARE * (budget.evaluations - report.evaluations))))
    sub_report = _Share(sub, report)
    solution = solve(big, int(rng.integers(1 << 31)), sub, sub_report)
    report.count(sub_report.evaluations)
    built = big.validate(solution.shortcuts)  # (never trust a graph, even our own: in range, within the cap)
    whole = summary(Graph(n_big, built))
    info: dict[str, Any] = {"overbuilt": n_big, "overbuilt_symmetry": g, "overbuilt_diameter": int(whole.max_finite),
                            "overbuilt_total": int(whole.total)}
    best, best_rank = None, None
    m = n_big // g
    for attempt in range(REPAIR_TRIES):
        if best is not None and report.should_stop():
            break
        # by the symmetry every vertex of an orbit is alike: the first victim cycles through the orbits
        victims = _victims(n_big, n_big - n, built, rng, attempt % m)
        edges = delete_and_pair(n_big, built, victims, rng)
        s = summary(Graph(n, edges))
        report.count(1)
        rank = (s.unreachable_pairs, s.max_finite, s.total)
        if best_rank is None or rank < best_rank:
            best, best_rank = edges, rank
    if best_rank is not None:
        info.update(repaired_diameter=int(best_rank[1]), repaired_total=int(best_rank[2]))
        if best_rank[0] == 0 and best_rank[1] > whole.max_finite and n <= MEND_MAX_N:
            best, mended = mend(n, best, int(whole.max_finite), rng, report)
            info.update(mended=mended)
    return best, info


def _far(D: np.ndarray, diameter: int) -> np.ndarray:
    """The pairs (u < v) farther apart than ``diameter``."""
    u, v = np.nonzero(np.triu(D > diameter, 1))
    return np.stack([u, v], axis=1)


def mend(n: int, edges: np.ndarray, diameter: int, rng: np.random.Generator, report: Reporter) -> tuple[np.ndarray, dict]:
    """Bring the pairs beyond ``diameter`` back within it by 2-opt swaps aimed at them: for a far pair
    (u, w), a swap (u, p), (w, q) -> (u, w), (p, q) with p a neighbour of u and q of w (degrees kept),
    preferring p, q far apart, each candidate measured exactly; the first candidate that lowers
    (unreachable pairs, pairs beyond ``diameter``, total distance) is kept.  Returns the graph
    and what was done."""
    cur = np.sort(np.asarray(edges, np.int64).reshape(-1, 2), axis=1)

    def measure(e: np.ndarray) -> tuple[np.ndarray, tuple[int, int, int]]:
        D = distance_matrix(Graph(n, e), dtype=np.uint8)
        report.count(1)
        beyond = D > diameter
        inf = np.iinfo(np.uint8).max
        unreachable = int((D == inf).sum()) // 2
        return D, (unreachable, int(beyond.sum()) // 2, int(D[D != inf].sum(dtype=np.int64)) // 2)

    D, rank = measure(cur)
    start_far, spent, swaps = rank[1], 1, 0
    while rank[1] > 0 and spent < MEND_EVALUATIONS and not report.should_stop():
        far = _far(D, diameter)
        u, w = map(int, far[rng.integers(far.shape[0])])
        g = Graph(n, cur)
        indptr, indices = g.csr
        nu, nw = indices[indptr[u]:indptr[u + 1]].astype(np.int64), indices[indptr[w]:indptr[w + 1]].astype(np.int64)
        P, Q = np.meshgrid(nu, nw, indexing="ij")
        P, Q = P.ravel(), Q.ravel()
        ok = (P != Q) & (P != w) & (Q != u) & (D[P, Q] > 1)
        P, Q = P[ok], Q[ok]
        if P.size == 0:
            spent += 1  # (no swap can join this pair: count the round, so the loop ends)
            continue
        # the new edge p--q helps most where p and q were far apart; ties in random order
        order = np.lexsort((rng.random(P.size), -D[P, Q].astype(np.int64)))[:MEND_CANDIDATES]
        keys = cur[:, 0] * n + cur[:, 1]
        best = None
        for i in order:
            if spent >= MEND_EVALUATIONS or report.should_stop():
                break
            p, q = int(P[i]), int(Q[i])
            drop = np.isin(keys, [min(u, p) * n + max(u, p), min(w, q) * n + max(w, q)])
            trial = np.concatenate([cur[~drop], [[min(u, w), max(u, w)], [min(p, q), max(p, q)]]])
            D_t, rank_t = measure(trial)
            spent += 1
            if rank_t < rank:  # the first candidate that helps is taken (each costs a distance matrix)
                best = (trial, D_t, rank_t)
                break
        if best is not None:
            cur, D, rank = best
            swaps += 1
    return cur, {"far_before": int(start_far), "far_after": int(rank[1]), "swaps": swaps, "evaluations": spent}
