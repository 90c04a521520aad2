"""Unconstrained solvers run on family problems too, so they can be compared with the family's solver."""
import pytest

from hopbench import solvers
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute

FAMILY_SOLVERS = {"equality-ga"}


def equality_problem(objective: str = "ad"):
    # ring N = 16, K = 4: an Equality network has N(K-2)/2 = 16 non-ring links
    return ShortcutProblem(parse_spec("ring:16"), 4, 16, objective, "equality", base_spec="ring:16")


@pytest.mark.parametrize("name", [n for n in solvers.names("shortcut") if n not in FAMILY_SOLVERS])
def test_unconstrained_solvers_accept_equality_problems(name):
    solver = solvers.create(name)
    problem = equality_problem()
    if name == "milp":
        # the exact model cannot express a*d (it says so); the family itself is no reason to skip
        assert solver.skip(problem)[0] and "not linear" in solver.skip(problem)[1]
        problem = equality_problem("aspl")
    assert solver.skip(problem) == (False, "")
    out = execute(solver, problem, seed=1, budget=Budget(time_s=2, evaluations=200))
    ev = out.solution.evaluate()  # a valid solution of the same problem
    assert len(out.solution.shortcuts) <= problem.budget and ev.objective > 0


def test_the_family_solver_and_an_unconstrained_one_share_the_problem():
    problem = equality_problem()
    ga = execute(solvers.create("equality-ga"), problem, seed=1, budget=Budget(time_s=5, evaluations=2000))
    ecf = execute(solvers.create("edgecut-full"), problem, seed=1, budget=Budget(time_s=5))
    assert "equality" in ga.solution.extra
    assert set(ga.solution.graph.degree.tolist()) == {4}  # an Equality network is K-regular
    for out in (ga, ecf):
        assert out.solution.evaluate().objective == out.solution.evaluation.objective
