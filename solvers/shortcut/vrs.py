"""VRS: vertex-based random shortcuts, keeping the farthest of k*y random destinations.

Koibuchi, Matsutani, Amano, Hsu & Casanova, "A Case for Random Shortcut
Topologies for HPC Interconnects", ISCA 2012, Sect. III-F; the EdgeCut paper
(Fuad et al. 2022) calls it *vertex-based random shortcut* (VRS) and uses it
as its main baseline.

Vertices are visited in a random order.  For each vertex v with a free port,
``k * y`` distinct random feasible destinations are drawn (all of them when
fewer exist) and v is linked to the ``y`` of them that are currently farthest
from v (the first drawn among equals; fewer when v has fewer free ports or the
budget runs out).  Distances are updated after every added shortcut, so "current"
includes the shortcuts added before.  When a pass over all vertices ends with
budget left, another pass starts in a new random order; the run stops when the
budget is spent or a whole pass adds nothing.

Two switches reproduce other readings of the method (not tuned):

* ``order = sequential`` visits vertices 0, 1, 2, ... (the "list of vertices
  scanned sequentially" of Koibuchi et al. Sect. III-A) instead of a random order;
* ``distances = base`` ranks destinations by their distance in the base
  graph instead of the current one.

With a small budget (the EdgeCut suite's 2n shortcuts) the two matter a lot:
a sequential scan puts every shortcut on a handful of consecutive vertices
and base distances send them all to the same far region.  The EdgeCut
paper's VRS diameters (Table 2, e.g. 49 on ring:256) resemble ``sequential`` +
``base`` and not the defaults (about 22); see docs/solvers-greedy.md.
"""
from __future__ import annotations

import numpy as np

from hopbench.harness.engine.distances import DistanceState, dense_matrix_refusal, dense_state_seconds_estimate
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution
from hopbench.solvers.contract import Param, Solver, register
from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.shortcut._greedy import Progress, state_objective
from hopbench.solvers.shortcut.feasible import FeasiblePairs


@register
class VertexRandomShortcuts(Solver):
    """Koibuchi et al.'s "k x y candidates, keep the y longest" shortcut method (VRS)."""

    name = "vrs"
    description = ("vertex-based random shortcuts (Koibuchi et al. 2012 Sect. III-F): each vertex, in random "
                   "order, links to the y farthest of k*y random feasible destinations")
    params = {
        "k": Param(2, "candidate destinations drawn per shortcut (k*y per vertex; k=1 is plain random)",
                   low=1, high=10, minimum=1),
        "y": Param(3, "shortcuts added per visited vertex", low=1, high=10, minimum=1),
        "order": Param("random", "vertex visiting order: random (a new permutation per pass) or "
                                 "sequential (0, 1, 2, ...)", choices=("random", "sequential"), tunable=False),
        "distances": Param("current", "rank destinations by current distances or by base-graph distances",
                           choices=("current", "base"), tunable=False),
    }
    readings = {"paper": ("the EdgeCut paper's reading (Fuad et al. 2022, Table 2): sequential order, base "
                          "distances", {"order": "sequential", "distances": "base"})}

    def skip(self, problem: ShortcutProblem) -> tuple[bool, str]:
        skipped, reason = super().skip(problem)
        if skipped:
            return skipped, reason
        why = dense_matrix_refusal(problem.n, 2.0 if self.config["distances"] == "base" else 1.0)
        return bool(why), why

    def solve(self, problem: ShortcutProblem, *, seed: int, budget: Budget, report: Reporter) -> Solution:
        k, y = int(self.config["k"]), int(self.config["y"])
        sequential = self.config["order"] == "sequential"
        rng = np.random.default_rng(seed)
        if report.remaining_time() < dense_state_seconds_estimate(problem.n):
            # building the matrix, which nothing interrupts, would overrun the time limit
            stopped = {"stopped": "time limit before the distance matrix", "passes": 0}
            return Solution(problem, np.empty((0, 2), np.int64), extra=stopped)
        pairs = FeasiblePairs(problem.base, problem.degree_cap)
        state = DistanceState.from_graph(problem.base)
        # 'base' ranks by a frozen copy; the live state still yields the objective
        ranking = state.D.copy() if self.config["distances"] == "base" else state.D
        progress = Progress(report)
        progress.offer(state_objective(state, problem.objective), shortcuts=0)
        chosen: list[tuple[int, int]] = []
        stopped = "budget"
        passes = 0
        while len(chosen) < problem.budget:
            passes += 1
            added_in_pass = 0
            order = range(problem.n) if sequential else rng.permutation(problem.n).tolist()
            for v in order:
                if len(chosen) >= problem.budget:
                    break
                if report.should_stop():
                    stopped = "time or evaluation budget"
                    break
                free = pairs.cap - int(pairs.degree[v])
                if free <= 0:
                    continue
                partners = pairs.pairs_with(v)
                if partners.size == 0:
                    continue
                draw = partners[rng.choice(partners.size, size=min(k * y, partners.size), replace=False)]
                take = min(y, free, problem.budget - len(chosen))
                # stable sort on -distance: among equally far destinations the first drawn wins
                picked = draw[np.argsort(-ranking[v, draw].astype(np.int64), kind="stable")[:take]]
                for w in picked.tolist():
                    state.add_edge(v, w)
                    pairs.add(v, w)
                    chosen.append((v, w) if v < w else (w, v))
                    report.count(1)
                    progress.offer(state_objective(state, problem.objective), shortcuts=len(chosen))
                added_in_pass += len(picked)
            else:
                if added_in_pass == 0:
                    stopped = "no feasible pair left"
                    break
                continue
            break  # the inner loop stopped early: budget spent or time is up
        progress.close(state_objective(state, problem.objective), shortcuts=len(chosen))
        shortcuts = np.asarray(chosen, dtype=np.int64).reshape(-1, 2)
        return Solution(problem, shortcuts, extra={"stopped": stopped, "passes": passes})
