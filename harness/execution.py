"""Running one solver on one problem: the step shared by ``hopbench solve`` and the runner."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from harness.budget import Budget, Reporter, TracePoint
from harness.errors import HopbenchError


@dataclass
class RunOutcome:
    """What one solver run produced: its solution (already evaluated) and its trace."""

    solution: Any
    trace: list[TracePoint] = field(default_factory=list)
    evaluations: int = 0
    elapsed_s: float = 0.0


def execute(solver: Any, problem: Any, *, seed: int, budget: Budget | None = None,
            on_report=None) -> RunOutcome:
    """Check ``skip``, run ``solver.solve`` under ``budget``, time it, evaluate the result.

    Raises :class:`HopbenchError` when the solver declines the problem.
    """
    skipped, reason = solver.skip(problem)
    if skipped:
        raise HopbenchError(f"solver {solver.name} cannot solve this problem: {reason}")
    budget = budget or Budget()
    reporter = Reporter(budget, on_report=on_report)
    start = time.perf_counter()
    solution = solver.solve(problem, seed=seed, budget=budget, report=reporter)
    elapsed = time.perf_counter() - start
    solution.solver = solver.name
    solution.params = dict(solver.config)
    solution.seed = seed
    solution.elapsed_s = elapsed
    if getattr(solution, "evaluation", None) is None and hasattr(solution, "evaluate"):
        solution.evaluate()
    return RunOutcome(solution, reporter.trace, reporter.evaluations, elapsed)
