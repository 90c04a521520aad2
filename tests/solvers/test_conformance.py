"""The shipped conformance suite (:mod:`hopbench.harness.testing`) over every registered solver."""
from __future__ import annotations

from hopbench import solvers
from hopbench.harness.testing import SolverConformance, conformance_cases


class TestEveryRegisteredSolver(SolverConformance):
    """Every solver hopbench ships, on the sample problems of every kind it claims.

    A 1 s limit (the shipped default is 2 s): about 70 timed cases, and the allowance past the
    limit is the same half second either way.
    """

    time_limit = 1.0


def test_every_registered_solver_is_covered():
    assert {case[0] for case in conformance_cases()} == set(solvers.names())
