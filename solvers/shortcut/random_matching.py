"""Random-matching shortcuts: Koibuchi et al.'s DLN-x-y / TORUS-x-y construction.

Koibuchi, Matsutani, Amano, Hsu & Casanova, "A Case for Random Shortcut
Topologies for HPC Interconnects", ISCA 2012, Sect. III-A.  To raise a graph of
degree x to degree x + y they add y random perfect matchings by one
sequential scan: every vertex below the target degree gets edges to random
vertices that are themselves below the target, are not itself and are not
yet adjacent; each partner is searched by at most 10,000 random tries, then by
a sequential scan starting at the last vertex tried.  The scan can get stuck
(e.g. the last two vertices below the target are already adjacent), and is
then started again.  100 such topologies are drawn and the best by
(diameter, ASPL) is kept.

Mapping onto a :class:`~hopbench.harness.problems.shortcut.problem.ShortcutProblem`:

* target degree ``T = min(cap, max base degree + y)``; ``y = 0`` (the
  default) means ``T = cap``, as many matchings as the cap allows.
* When the budget covers every missing port (``sum(T - degree) / 2``
  shortcuts, e.g. ring:1024, cap 10, budget 4096), the construction is the
  paper's: one scan in vertex order, retried when it gets stuck (at most
  ``RETRIES`` times; after that the fullest attempt is kept).  When the total
  number of missing ports is odd, one port necessarily stays free; that is
  not a failure.
* Otherwise (a budget that cannot make the graph regular, e.g. the EdgeCut
  suite's 2n shortcuts; or an irregular base such as a mesh whose corners
  would need more shortcuts than the budget allows) the budget is filled
  level by level: first every vertex of the lowest degree d gets one random
  partner of degree <= d, then the next level, and so on up to T, each level
  scanning the vertices in a random order and stopping when the budget is
  spent.  This keeps the result as regular as the budget allows (Koibuchi
  et al. found regular topologies better than irregular ones, Sect. III-G).
* A ``regular`` problem (every vertex must end at the cap, budget = half the
  free ports) always uses target ``cap`` and restarts the scan until it
  succeeds (or the time budget ends) instead of accepting a partial fill.
* A sample is evaluated only when the evaluation fits in the time left
  (:func:`~hopbench.harness.engine.distances.summary_seconds_estimate`): on
  n = 100,000, d = 8 one takes 11 s.  When it does not, a first sample is
  returned unevaluated (the harness evaluates every solution) and a later one
  is dropped; ``extra["stopped"]`` says what ended the draws (``samples``,
  ``budget`` or ``time limit``).
* Samples are ranked by ``select``: ``diameter-aspl`` (the paper's rule,
  default) or ``objective`` (the problem's objective, then diameter, then
  ASPL).  Both agree for the golf and diameter objectives.

The construction runs in a compiled kernel with its own counter-based random
stream (splitmix64) seeded from the run's numpy generator, so a seed gives the
same edges on every machine.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

from typing import Callable

import numba as nb
import numpy as np

from hopbench.harness.engine.distances import summary, summary_seconds_estimate
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution, objective_value
from hopbench.solvers.contract import Param, Solver, register
from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.shortcut._greedy import Progress

#: full restarts of the paper's scan before the fullest attempt is accepted
RETRIES = 100

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@nb.njit(cache=True)
def _next(state):
    """splitmix64: advance the one-word state and return a mixed 64-bit value."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True)
def _below(state, n):
    """A uniform integer in [0, n) (53 random bits; the modulo bias is below 2^-30 for n < 2^23)."""
    return np.int64((_next(state) >> np.uint64(11)) % np.uint64(n))


@nb.njit(cache=True)
def _adjacent(adj, deg, v, w):
    for i in range(deg[v]):
        if adj[v, i] == w:
            return True
    return False


@nb.njit(cache=True)
def _fill(adj, deg, target, order, max_edges, tries, state, out, count, skip_stuck):
    """Raise every vertex of ``order`` (in that order) to degree ``target``.

    Partners must be below ``target``, distinct and not adjacent.  Each
    partner: ``tries`` uniform random picks, then a sequential scan from the
    last vertex tried.  Appends edges to ``out`` from row ``count`` and stops
    at ``max_edges`` edges in ``out``.  Returns ``(count, stuck_vertex)``;
    ``stuck_vertex`` is -1 unless a vertex found no partner while two or more
    ports were still missing (with ``skip_stuck`` such vertices are passed
    over instead).
    """
    n = deg.shape[0]
    for idx in range(order.shape[0]):
        v = order[idx]
        while deg[v] < target:
            if count >= max_edges:
                return count, -1
            w = -1
            last = 0
            for _ in range(tries):
                c = _below(state, n)
                last = c
                if c != v and deg[c] < target and not _adjacent(adj, deg, v, c):
                    w = c
                    break
            if w < 0:
                for s in range(n):
                    c = (last + s) % n
                    if c != v and deg[c] < target and not _adjacent(adj, deg, v, c):
                        w = c
                        break
            if w < 0:
                missing = 0
                for c in range(n):
                    missing += max(target - deg[c], 0)
                if missing <= 1:
                    # one port left over (an odd number of missing ports):
                    # it stays free, nothing failed
                    return count, -1
                if skip_stuck:
                    break
                return count, v
            adj[v, deg[v]] = w
            deg[v] += 1
            adj[w, deg[w]] = v
            deg[w] += 1
            out[count, 0] = min(v, w)
            out[count, 1] = max(v, w)
            count += 1
    return count, -1


def _adjacency(problem: ShortcutProblem) -> tuple[np.ndarray, np.ndarray]:
    """Padded adjacency (one row per vertex, ``cap`` slots) and degrees of the base graph."""
    base = problem.base
    cap = int(problem.degree_cap)
    adj = np.full((base.n, max(cap, 1)), -1, dtype=np.int64)
    deg = base.degree.astype(np.int64).copy()
    indptr, indices = base.csr
    rows = np.repeat(np.arange(base.n), deg)
    adj[rows, np.arange(indices.size) - indptr[rows]] = indices
    return adj, deg


def build_sample(problem: ShortcutProblem, target: int, tries: int,
                 rng: np.random.Generator, adj0: np.ndarray, deg0: np.ndarray, *,
                 retries: int | None = RETRIES,
                 stop: Callable[[], bool] = lambda: False) -> tuple[np.ndarray, int, bool]:
    """One random-matching topology: ``(shortcuts, restarts, complete)``.

    See the module docstring for the two regimes (the paper's full scan,
    and the level-by-level fill when the budget cannot make the graph regular).
    ``complete`` says the paper's scan reached the target degree everywhere
    (one port may stay free when their number is odd); ``retries=None``
    restarts it until it does or ``stop()`` says the time is up.
    """
    n = problem.n
    missing = int(np.maximum(target - deg0, 0).sum())
    budget = int(problem.budget)
    out = np.empty((max(min(budget, missing // 2 + 1), 1), 2), dtype=np.int64)
    if missing // 2 <= budget:
        order = np.arange(n, dtype=np.int64)
        best: tuple[int, np.ndarray] | None = None
        attempt = 0
        while True:
            adj, deg = adj0.copy(), deg0.copy()
            state = rng.integers(0, 2**63, size=1, dtype=np.uint64)
            count, stuck = _fill(adj, deg, target, order, budget, tries, state, out, 0, False)
            if stuck < 0:
                return out[:count].copy(), attempt, True
            if best is None or count > best[0]:
                best = (count, out[:count].copy())
            attempt += 1
            if (retries is not None and attempt > retries) or stop():
                return best[1], attempt, False
    adj, deg = adj0.copy(), deg0.copy()
    count = 0
    level = int(deg0.min()) + 1
    while count < budget and level <= target:
        state = rng.integers(0, 2**63, size=1, dtype=np.uint64)
        order = rng.permutation(n).astype(np.int64)
        count, _ = _fill(adj, deg, level, order, budget, tries, state, out, count, True)
        level += 1
    return out[:count].copy(), 0, False


@register
class RandomMatching(Solver):
    """Koibuchi et al.'s random-matching shortcuts: best of ``samples`` random regular fills."""

    name = "random-matching"
    supports_regular = True  # the paper's scan is restarted until every vertex is at the cap
    description = ("random perfect matchings up to degree x+y (Koibuchi et al. 2012 Sect. III-A), "
                   "best of `samples` draws by (diameter, ASPL)")
    params = {
        "y": Param(0, "matchings to add (target degree = max base degree + y, at most the cap); "
                      "0 = fill up to the cap", minimum=0, tunable=False),
        "samples": Param(100, loop=True, help="random topologies drawn; the best is kept", low=1, high=1000, log=True,
                         minimum=1),
        "tries": Param(10000, loop=True, help="random partner picks before the sequential scan", minimum=1, tunable=False),
        "select": Param("diameter-aspl", "how samples are ranked: the paper's (diameter, ASPL), or the "
                                         "problem's objective first",
                        choices=("diameter-aspl", "objective"), tunable=False),
    }

    def target_degree(self, problem: ShortcutProblem) -> int:
        """The degree every vertex is raised to: the cap, or max base degree + y below it.

        A ``regular`` problem asks for every vertex at the cap, so ``y`` is ignored there.
        """
        y = int(self.config["y"])
        cap = int(problem.degree_cap)
        if y == 0 or getattr(problem, "regular", False):
            return cap
        return min(cap, problem.base.max_degree + y)

    def solve(self, problem: ShortcutProblem, *, seed: int, budget: Budget, report: Reporter) -> Solution:
        rng = np.random.default_rng(seed)
        target = self.target_degree(problem)
        tries = int(self.config["tries"])
        by_objective = self.config["select"] == "objective"
        # Under (diameter, ASPL) ranking the kept sample's ASPL-type objective can
        # rise when a smaller diameter comes along; the trace must not, so such
        # runs report once, at the end.
        live = by_objective or problem.objective in ("diameter", "golf")
        regular = bool(getattr(problem, "regular", False))
        adj0, deg0 = _adjacency(problem)
        progress = Progress(report)
        best_key = None
        best = None
        diameters: list[float] = []
        aspls: list[float] = []
        restarts = drawn = 0
        stopped = "samples"
        for i in range(int(self.config["samples"])):
            if i and report.should_stop():
                stopped = "budget"
                break
            # a regular problem only accepts complete fills: restart the scan until one
            # succeeds (or the time budget ends), where the paper's recipe allows RETRIES
            shortcuts, again, complete = build_sample(problem, target, tries, rng, adj0, deg0,
                                                      retries=None if regular else RETRIES,
                                                      stop=report.should_stop)
            restarts += again
            drawn += 1
            graph = problem.graph_with(shortcuts)
            if report.remaining_time() < summary_seconds_estimate(graph):
                # evaluating it would overrun the time limit (11 s on n = 100,000, d = 8): a first sample
                # is returned unevaluated (the harness evaluates every solution), a later one is dropped
                if best is None:
                    best = (shortcuts, None)
                stopped = "time limit"
                break
            s = summary(graph)
            report.count(1)
            value = objective_value(problem.objective, s.diameter, s.aspl)
            key = (value, s.diameter, s.aspl) if by_objective else (s.diameter, s.aspl)
            key = (regular and not complete,) + key  # an incomplete fill never beats a complete one
            diameters.append(s.diameter)
            aspls.append(s.aspl)
            if best_key is None or key < best_key:
                best_key, best = key, (shortcuts, value)
                if live and (complete or not regular):
                    progress.offer(value, shortcuts=len(shortcuts), sample=i)
        if best[1] is not None:
            progress.close(best[1], shortcuts=len(best[0]))
        extra = {"target_degree": target, "samples_drawn": drawn, "restarts": restarts,
                 "sample_diameters": diameters, "sample_aspls": aspls, "stopped": stopped}
        return Solution(problem, best[0], extra=extra)
