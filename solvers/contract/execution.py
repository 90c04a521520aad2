"""Running one solver on one problem: the step shared by ``hopbench solve`` and the runner."""
from __future__ import annotations

import gc
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from hopbench.harness.errors import SolverDeclined
from hopbench.solvers.contract.budget import Budget, Reporter, TracePoint


@dataclass
class RunOutcome:
    """What one solver run produced: its solution (already evaluated) and its trace."""

    solution: Any
    trace: list[TracePoint] = field(default_factory=list)
    evaluations: int = 0
    elapsed_s: float = 0.0
    interrupted: bool = False  #: stopped by its ``stop`` event (Ctrl-C) before the budget was spent


_depth = 0  # execute() calls in progress: a solver may run another one (milp's warm start), threads may too
_depth_lock = threading.Lock()


@contextmanager
def _old_objects_frozen():
    """Keep the objects alive before the clock starts out of the run's garbage collections.

    A full collection scans every tracked object: in a long-lived process (a worker that
    ran many cells, a test session) it can pause a run for most of a second, past a short
    time limit.  Freezing is O(1); collecting first would itself be that pause (3 M objects:
    0.24 s idle, 0.5 s with every core busy), charged to the run's budget, so the garbage made
    before the run waits for the first collection after it.  Nested and concurrent runs leave
    it to the first one, whose clock may be running.
    """
    global _depth
    with _depth_lock:
        _depth += 1
        if _depth == 1:
            gc.freeze()
    try:
        yield
    finally:
        with _depth_lock:
            _depth -= 1
            if _depth == 0:
                gc.unfreeze()


def check_loop_counts(solver: Any) -> None:
    """Refuse, before a run without a time limit, a loop-count parameter (``Param(loop=True)``) above
    :data:`hopbench.harness.caps.LOOP_COUNT`: nothing else would end that run."""
    from hopbench.harness import caps

    for key, param in getattr(solver, "params", {}).items():
        value = solver.config.get(key) if getattr(param, "loop", False) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            caps.LOOP_COUNT.check(value, f"solver {solver.name}'s {key} = {value:g} with no time limit (give a "
                                         f"--time-limit to bound the run instead)")


def execute(solver: Any, problem: Any, *, seed: int, budget: Budget | None = None,
            on_report=None, stop: threading.Event | None = None, on_reporter=None) -> RunOutcome:
    """Check ``skip``, run ``solver.solve`` under ``budget``, time it, evaluate the result.

    Setting ``stop`` (from a signal handler, another thread) ends the budget: the solver returns its best
    solution at its next poll of ``report.should_stop()``, and the outcome is marked ``interrupted``.
    ``on_reporter(reporter)`` receives the run's :class:`Reporter` before the solver starts, so a progress
    display can read its live evaluation count between improvements.

    Raises :class:`~hopbench.harness.errors.SolverDeclined` (a ``HopbenchError``) when the solver's
    ``skip`` declines the problem; callers that treat a decline as an outcome catch it
    instead of asking ``skip`` first (some solvers' checks build the base distances).
    """
    budget = budget or Budget()
    if budget.time_s is None:
        check_loop_counts(solver)
    skipped, reason = solver.skip(problem)
    if skipped:
        raise SolverDeclined(solver.name, reason)
    reporter = Reporter(budget, on_report=on_report, stop=stop)
    if on_reporter is not None:
        on_reporter(reporter)
    with _old_objects_frozen():
        start = time.perf_counter()
        solution = solver.solve(problem, seed=seed, budget=budget, report=reporter)
        elapsed = time.perf_counter() - start
    solution.solver = solver.name
    solution.params = dict(solver.config)
    solution.seed = seed
    solution.elapsed_s = elapsed
    solution.trace, solution.evaluations = reporter.trace, reporter.evaluations
    if getattr(solution, "evaluation", None) is None and hasattr(solution, "evaluate"):
        solution.evaluate()
    return RunOutcome(solution, reporter.trace, reporter.evaluations, elapsed, interrupted=reporter.interrupted)
