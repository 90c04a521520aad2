"""Solvers that keep dense n x n distance matrices decline graphs whose matrices would exceed the cap,
before they allocate anything; the scalable solvers still take those graphs."""
import pytest

from hopbench import solvers
from hopbench.harness.errors import SolverDeclined
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute


def problem(spec: str, cap: int, budget: int, objective: str = "aspl") -> ShortcutProblem:
    return ShortcutProblem(parse_spec(spec), cap, budget, objective, base_spec=spec)


@pytest.mark.parametrize("name, params", [("vrs", {}), ("vrs", {"distances": "base"}), ("edgecut-full", {}),
                                          ("edgecut-lite", {}), ("annealing", {})])
def test_declines_a_graph_whose_matrices_exceed_the_cap(monkeypatch, name, params):
    monkeypatch.setenv("HOPBENCH_MAX_DENSE_MATRIX_BYTES", str(100_000))  # ring:250: 62,500 bytes a matrix
    solver = solvers.create(name, **params)
    skipped, why = solver.skip(problem("ring:250", 4, 5))
    # vrs with base distances keeps a second matrix, annealing caches several (budget + 3 here)
    assert skipped == (name == "annealing" or params.get("distances") == "base"), why
    skipped, why = solver.skip(problem("ring:400", 4, 5))  # two bytes a distance from 255 vertices up
    assert skipped and "HOPBENCH_MAX_DENSE_MATRIX_BYTES" in why
    with pytest.raises(SolverDeclined):
        execute(solver, problem("ring:400", 4, 5), seed=1, budget=Budget(evaluations=10))


def test_annealing_swap_mode_keeps_no_dense_matrix(monkeypatch):
    monkeypatch.setenv("HOPBENCH_MAX_DENSE_MATRIX_BYTES", str(1000))
    p = problem("empty:400", 4, 800, "golf")  # a budget that fills every port: swap mode
    out = execute(solvers.create("annealing"), p, seed=1, budget=Budget(evaluations=200))
    assert out.solution.evaluation.diameter < 400


@pytest.mark.parametrize("name, module", [("vrs", "vrs"), ("edgecut-full", "edgecut"), ("edgecut-lite", "edgecut"),
                                          ("annealing", "annealing")])
def test_returns_its_start_when_the_matrix_would_not_fit_in_the_time_left(monkeypatch, name, module):
    import importlib

    mod = importlib.import_module(f"hopbench.solvers.shortcut.{module}")
    p = problem("ring:64", 4, 5)
    monkeypatch.setattr(mod, "dense_state_seconds_estimate", lambda n, matrices=1.0: 1e9)
    out = execute(solvers.create(name), p, seed=1, budget=Budget(time_s=600))
    assert out.solution.extra["stopped"] == "time limit before the distance matrix"
    assert len(out.solution.shortcuts) == 0 and out.solution.evaluation.diameter == 32  # the base, evaluated
    # with time enough, or without a time limit, the same run adds its shortcuts
    monkeypatch.setattr(mod, "dense_state_seconds_estimate", lambda n, matrices=1.0: 1.0)
    enough = Budget(time_s=600, evaluations=50)  # (annealing would use all the time it is given)
    assert len(execute(solvers.create(name), p, seed=1, budget=enough).solution.shortcuts) == 5
    monkeypatch.setattr(mod, "dense_state_seconds_estimate", lambda n, matrices=1.0: 1e9)
    assert len(execute(solvers.create(name), p, seed=1, budget=Budget(evaluations=50)).solution.shortcuts) == 5
