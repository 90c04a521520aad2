"""The ``simulator`` solver: a traffic problem measured under the one Solver interface."""
from __future__ import annotations

import pytest

from hopbench import solvers
from hopbench.harness.bench.cells import run_cell
from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.registry import get_kind
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute


def test_it_solves_only_traffic_problems_and_counts_load_points_as_evaluations():
    kind = get_kind("traffic")
    problem = kind.sample_problems()[0]
    out = execute(solvers.create("simulator", curve=2), problem, seed=2, budget=Budget(time_s=120))
    doc = out.solution.to_dict()
    # zero-load, the bisection's points, the curve: every simulated load is one evaluation
    assert out.evaluations == 1 + len(doc["saturation_points"]) + len(doc["curve"]) == 1 + 9 + 2
    assert [p.value for p in out.trace] == [out.solution.evaluation.objective]
    assert doc["solver"] == {"name": "simulator", "params": {"bound": True, "curve": 2, "tolerance": 0.005}}
    shortcut = get_kind("shortcut").sample_problems()[0]
    skipped, reason = solvers.create("simulator").skip(shortcut)
    assert skipped and "traffic" in reason


def test_a_time_limit_shorter_than_the_simulation_is_an_error_row_not_a_partial_result():
    problem_fields = {"network": "torus:6x6", "routing": "dor", "router": {"num_vcs": 2}}
    cell = {"key": "k", "suite": "s", "instance": "torus:6x6/uniform/dor;num_vcs=2", "kind": "traffic",
            "fields": problem_fields, "solver": "simulator", "params": {}, "params_tag": "default", "seed": 1,
            "time_limit": 0.05, "evaluations": None, "threads": 1}
    result = run_cell(cell)
    assert result["status"] == "error" and "time limit ended" in result["error"]
    assert result.get("objective") is None


def test_parameters_are_checked():
    with pytest.raises(HopbenchError, match="curve must be <= 50"):
        solvers.create("simulator", curve=51)
    with pytest.raises(HopbenchError, match="tolerance must be >= 0.001"):
        solvers.create("simulator", tolerance=0)
