"""``random``: uniformly random feasible shortcuts up to the budget."""
from __future__ import annotations

import numpy as np

from hopbench.harness.engine.distances import summary_seconds_estimate
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution
from hopbench.solvers.contract import Solver, register
from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.shortcut.feasible import FeasiblePairs


@register
class RandomShortcuts(Solver):
    """Adds one uniformly random feasible shortcut at a time until the budget is
    spent or no feasible pair is left.  The baseline every method must beat.

    Its one trace point is the finished graph's value.  The evaluation behind it is
    skipped, so that the run ends within its time limit, when the limit stopped the
    draws or the rest of the limit is shorter than an estimate of the evaluation's cost
    (on 10,000 vertices 0.05 s for a random graph, 0.5 s for a ring); the harness evaluates every
    solution anyway.
    """

    name = "random"
    opt_in_objectives = ("channel-load",)  # a baseline for every objective: its graph is measured, not steered
    description = "uniformly random feasible shortcuts up to the budget, within the degree cap"

    def solve(self, problem: ShortcutProblem, *, seed: int, budget: Budget, report: Reporter) -> Solution:
        rng = np.random.default_rng(seed)
        pairs = FeasiblePairs(problem.base, problem.degree_cap)
        chosen: list[tuple[int, int]] = []
        stopped = "budget"
        while len(chosen) < problem.budget:
            if report.should_stop():
                stopped = "time limit"  # (it evaluates once, at the end: only the clock can stop the draws)
                break
            pick = pairs.draw(1, rng)
            if not len(pick):
                stopped = "no feasible pair left"
                break
            u, v = map(int, pick[0])
            pairs.add(u, v)
            chosen.append((u, v))
        solution = Solution(problem, np.asarray(chosen, dtype=np.int64).reshape(-1, 2), extra={"stopped": stopped})
        if stopped != "time limit" and report.remaining_time() >= summary_seconds_estimate(
                problem.graph_with(solution.shortcuts)):
            report.count(1)
            report(solution.evaluate().objective, shortcuts=len(chosen))
        return solution
