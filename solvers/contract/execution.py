"""Running one solver on one problem: the step shared by ``hopbench solve`` and the runner."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from harness.errors import SolverDeclined
from solvers.contract.budget import Budget, Reporter, TracePoint


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

    Raises :class:`~harness.errors.SolverDeclined` (a ``HopbenchError``) when the solver's
    ``skip`` declines the problem; callers that treat a decline as an outcome catch it
    instead of asking ``skip`` first (some solvers' checks build the base distances).
    """
    skipped, reason = solver.skip(problem)
    if skipped:
        raise SolverDeclined(solver.name, reason)
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
