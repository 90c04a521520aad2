"""Warming a solver up: compile its numba kernels before any clock starts.

The one warm-up path of hopbench — the runner's cells, ``hopbench solve`` and
``route``, and the conformance suite all call :func:`warm_up_solver`.  The solver
runs on the warm-up problems of each kind it solves (tiny problems that reach
every compiled code path); numba caches what it compiled on disk, so later
processes only load it.
"""
from __future__ import annotations

import json
from typing import Any

from harness.errors import HopbenchError
from harness.problems.registry import get_kind
from solvers.contract.budget import Budget
from solvers.contract.execution import execute
from solvers.contract.registry import create, get, is_builtin, names

#: the budget of one warm-up run: evaluations, because a wall-clock budget could be used up by
#: compiling one kernel before the next is reached, and a time cap for solvers that count none
WARM_UP_BUDGET = Budget(time_s=20.0, evaluations=50)

_warmed: set[str] = set()


def warm_up_solver(name: str, params: dict[str, Any] | None = None) -> None:
    """Run solver ``name`` (with ``params``) once on every warm-up problem of its kinds.

    Once per solver and parameter set per process; failures are ignored — the real
    run reports them.
    """
    key = f"{name}|{json.dumps(params or {}, sort_keys=True, default=str)}"
    if key in _warmed:
        return
    _warmed.add(key)
    try:
        kinds = get(name).kinds
    except HopbenchError:
        return
    for kind in kinds:
        try:
            problems = get_kind(kind).warm_up_problems()
        except HopbenchError:
            continue
        for problem in problems:
            try:
                execute(create(name, **(params or {})), problem, seed=0, budget=WARM_UP_BUDGET)
            except Exception:  # a decline or a failure: the real run will report it
                pass


def warm_builtin_solvers() -> None:
    """Warm up every built-in solver (e.g. once per test session, before anything is timed)."""
    for name in names():
        if is_builtin(name):
            warm_up_solver(name)
