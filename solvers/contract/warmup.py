"""Warming a solver up: compile its numba kernels before any clock starts.

The one warm-up path of hopbench — the runner's cells, ``hopbench solve`` and
``route``, and the conformance suite all call :func:`warm_up_solver`.  The solver's
:meth:`~hopbench.solvers.contract.solver.Solver.warm_up` hook runs first (kernels that the short
warm-up runs cannot reach), then the solver runs on the warm-up problems of each kind it
solves (small problems that reach its compiled code paths); numba caches what it compiled
on disk, so later processes only load it.

A solver shipped with hopbench is warmed up leniently: a failure is left for the real
run to report.  The runner warms a plug-in up ``strict``-ly, under a time budget shared by
its warm-up problems: a failure is raised (:class:`WarmUpFailed`) and recorded as the
cell's result, since a plug-in that breaks on the small warm-up problems (which the
conformance suite also runs) has not earned its real runs.
"""
from __future__ import annotations

import json
from typing import Any

from hopbench.harness.errors import HopbenchError, SolverDeclined
from hopbench.harness.problems.registry import get_kind
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.contract.registry import create, get, is_builtin, names

#: the budget of one warm-up run: evaluations, because a wall-clock budget could be used up by
#: compiling one kernel before the next is reached, and a time cap for solvers that count none
WARM_UP_BUDGET = Budget(time_s=20.0, evaluations=50)

_warmed: set[str] = set()
_failed: dict[str, "WarmUpFailed"] = {}


class WarmUpFailed(Exception):
    """A strict warm-up's run failed: ``cause`` raised on warm-up problem ``index`` (1-based) of ``count``
    of kind ``kind``."""

    def __init__(self, solver: str, kind: str, index: int, count: int, cause: BaseException) -> None:
        where = f"on warm-up problem {index}/{count} of kind {kind}" if count else "in its warm_up()"
        super().__init__(f"warm-up of solver {solver} failed {where}: {type(cause).__name__}: {cause}")
        self.solver, self.kind, self.index, self.count, self.cause = solver, kind, index, count, cause


def warm_up_budget(time_s: float | None, problems: int) -> Budget:
    """The budget of each of ``problems`` warm-up runs when the whole warm-up may take ``time_s`` seconds:
    a quarter of it shared among them (the rest is for compiling, loading and a slow machine), at most the
    usual 20 s each."""
    if time_s is None:
        return WARM_UP_BUDGET
    share = time_s / (4 * max(1, problems))
    return Budget(time_s=max(0.05, min(WARM_UP_BUDGET.time_s, share)), evaluations=WARM_UP_BUDGET.evaluations)


def warm_up_solver(name: str, params: dict[str, Any] | None = None, *, time_s: float | None = None,
                   strict: bool = False) -> None:
    """Run solver ``name`` (with ``params``) once on every warm-up problem of its kinds.

    Once per solver and parameter set per process.  ``time_s``: what the whole warm-up may
    take (each run's wall-clock budget is a share of it, :func:`warm_up_budget`).  Failures
    are ignored — the real run reports them — unless ``strict``: then the first failure is
    raised as :class:`WarmUpFailed`, now and on every later call for the same solver and
    parameters.  A problem the solver declines is no failure.
    """
    key = f"{name}|{json.dumps(params or {}, sort_keys=True, default=str)}"
    if key in _warmed:
        if strict and key in _failed:
            raise _failed[key]
        return
    _warmed.add(key)
    try:
        kinds = get(name).kinds
    except HopbenchError:
        return
    try:
        create(name, **(params or {})).warm_up()
    except Exception as exc:
        if strict:
            _failed[key] = WarmUpFailed(name, "", 0, 0, exc)
            raise _failed[key] from exc
    for kind in kinds:
        try:
            problems = get_kind(kind).warm_up_problems()
        except HopbenchError:
            continue
        budget = warm_up_budget(time_s, len(problems))
        for index, problem in enumerate(problems, 1):
            try:
                execute(create(name, **(params or {})), problem, seed=0, budget=budget)
            except SolverDeclined:
                pass
            except Exception as exc:  # the real run will report it, or (strict) it is the cell's result
                if strict:
                    _failed[key] = WarmUpFailed(name, kind, index, len(problems), exc)
                    raise _failed[key] from exc
                # a shipped solver's failure is left for its real run to report


def warm_builtin_solvers() -> None:
    """Warm up every built-in solver (e.g. once per test session, before anything is timed)."""
    for name in names():
        if is_builtin(name):
            warm_up_solver(name)
