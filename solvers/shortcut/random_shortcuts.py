"""``random``: uniformly random feasible shortcuts up to the budget."""
from __future__ import annotations

import numpy as np

from harness.problems.shortcut.problem import ShortcutProblem, Solution
from solvers.contract import Solver, register
from solvers.contract.budget import Budget, Reporter
from solvers.shortcut.feasible import FeasiblePairs


@register
class RandomShortcuts(Solver):
    """Adds one uniformly random feasible shortcut at a time until the budget is
    spent or no feasible pair is left.  The baseline every method must beat."""

    name = "random"
    description = "uniformly random feasible shortcuts up to the budget, within the degree cap"

    def solve(self, problem: ShortcutProblem, *, seed: int, budget: Budget, report: Reporter) -> Solution:
        rng = np.random.default_rng(seed)
        pairs = FeasiblePairs(problem.base, problem.degree_cap)
        chosen: list[tuple[int, int]] = []
        while len(chosen) < problem.budget and not report.should_stop():
            pick = pairs.draw(1, rng)
            if not len(pick):
                break
            u, v = map(int, pick[0])
            pairs.add(u, v)
            chosen.append((u, v))
        solution = Solution(problem, np.asarray(chosen, dtype=np.int64).reshape(-1, 2))
        report.count(1)
        report(solution.evaluate().objective, shortcuts=len(chosen))
        return solution
