"""Solving from Python: :func:`solve` runs one solver once, as ``hopbench solve`` does."""
from __future__ import annotations

import math
from typing import Any

from hopbench.harness.errors import HopbenchError


def solver_names(kind: str | None = None) -> list[str]:
    """Registered solver names, or only those that solve problems of ``kind`` (``"shortcut"``, ``"routing"``)."""
    from hopbench import solvers

    return solvers.names(kind)


def _budget(time_limit: float | None, evaluations: int | None) -> Any:
    from hopbench.solvers.contract.budget import Budget

    if time_limit is not None:
        if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) \
                or not (time_limit > 0 and math.isfinite(time_limit)):
            raise HopbenchError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if evaluations is not None:
        if isinstance(evaluations, bool) or not isinstance(evaluations, int) or evaluations < 1:
            raise HopbenchError(f"evaluations must be an integer >= 1, got {evaluations!r}")
    return Budget(time_s=None if time_limit is None else float(time_limit), evaluations=evaluations)


def _solver(solver: Any, kind: str, params: dict[str, Any]) -> Any:
    from hopbench import solvers
    from hopbench.solvers.contract.solver import Solver

    if isinstance(solver, str):
        instance = solvers.create(solver, **params)
    elif isinstance(solver, Solver):
        if params:
            raise HopbenchError(f"parameters {sorted(params)} were given beside a solver object; give them to its "
                                f"constructor, or pass the solver by name")
        instance = solver
    else:
        raise HopbenchError(f"solver must be a solver name such as 'edgecut-full' or a Solver object, got "
                            f"{type(solver).__name__}")
    if kind not in instance.kinds:
        raise HopbenchError(f"solver {instance.name} does not solve {kind} problems; use one of "
                            f"{', '.join(solvers.names(kind)) or 'none registered'}")
    return instance


def solve(problem: Any, solver: Any, *, seed: int = 0, time_limit: float | None = None,
          evaluations: int | None = None, warm_up: bool = True, **params: Any) -> Any:
    """Run ``solver`` once on ``problem`` and return its evaluated solution.

    Parameters
    ----------
    problem
        A :class:`~hopbench.harness.problems.shortcut.problem.ShortcutProblem`, a
        :class:`~hopbench.harness.problems.routing.problem.RoutingProblem`, or a plug-in kind's problem.
    solver
        A registered name (``"edgecut-full"``; :func:`solver_names` lists them) or a ``Solver`` object.
    seed
        The same seed gives the same solution (with an evaluation budget or none; a time limit stops
        a solver wherever the clock finds it).
    time_limit, evaluations
        The budget: wall-clock seconds and/or objective evaluations; ``None`` means unlimited.
    warm_up
        Compile a built-in solver's numba kernels before its clock starts (once per solver and parameter
        set per process, on small warm-up problems; the compiled code is cached on disk across processes).
        The time it takes is not charged to ``time_limit`` nor counted in ``elapsed_s``.
    **params
        The solver's parameters by name (``t=20``), as ``hopbench solvers NAME`` lists them.

    Returns
    -------
    The solution (``Solution`` or ``RoutingTable``): ``.metrics`` (diameter, ASPL, objective ...),
    ``.evaluation`` (with lower bounds and gaps for a shortcut problem), ``.trace`` (the anytime
    trace: ``TracePoint(elapsed_s, evaluations, value)`` per improvement), ``.evaluations``,
    ``.elapsed_s``, ``.solver``, ``.params`` and ``.seed``.

    A solver that declines the problem raises ``SolverDeclined`` (a :class:`HopbenchError`) with its reason.
    """
    from hopbench import solvers
    from hopbench.harness import caps
    from hopbench.solvers.contract.execution import execute
    from hopbench.solvers.contract.warmup import warm_up_solver

    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise HopbenchError(f"seed must be a non-negative integer, got {seed!r}")
    caps.SEED_VALUE.check(seed, "the seed")
    kind = getattr(problem, "kind", None)
    if not isinstance(kind, str):
        raise HopbenchError(f"cannot solve a {type(problem).__name__}; build a problem first, e.g. "
                            f"hopbench.ShortcutProblem('torus:6x6', degree_cap=6, budget=6)")
    budget = _budget(time_limit, evaluations)
    instance = _solver(solver, kind, params)
    if warm_up and solvers.is_builtin(instance.name):
        # the one warm-up path (hopbench.solvers.contract.warmup), shared with `hopbench solve` and the runner
        warm_up_solver(instance.name, dict(instance.config))
    return execute(instance, problem, seed=seed, budget=budget).solution
