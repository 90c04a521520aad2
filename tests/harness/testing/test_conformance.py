"""The conformance checks themselves (:mod:`hopbench.harness.testing.conformance`)."""
from __future__ import annotations

import time

import numpy as np
import pytest

from hopbench.harness.problems.shortcut.problem import Solution
from hopbench.harness.testing.conformance import check_same_seed_same_solution, hurried_clock, sample_problems
from hopbench.solvers.contract import Solver, registry


class ClockSized(Solver):
    """Spends its evaluation budget in calls sized by the clock and records how many calls it made: the
    way annealing's calibration once ran past the move that met the lower bound by as many moves as the
    clock allowed, so that a busy machine changed its result."""

    name = "test-clock-sized"
    description = "sizes its calls by the clock (a result that depends on machine load)"

    def solve(self, problem, *, seed, budget, report):
        calls, chunk = 0, 1
        while report.evaluations < budget.evaluations:
            began = time.perf_counter()
            report.count(min(chunk, budget.evaluations - report.evaluations))
            calls += 1
            # a call this quick is cheap: make the next one larger
            chunk = 8 if time.perf_counter() - began < 1e-4 else 1
        return Solution(problem, np.empty((0, 2), np.int64), extra={"calls": calls})


def test_the_hurried_clock_runs_ahead_never_back_and_is_put_back():
    real = time.perf_counter
    with hurried_clock():
        readings = [time.perf_counter() for _ in range(200)]
        assert time.perf_counter() - real() > 0.05  # 200 steps of 1 ms on average
    assert time.perf_counter is real
    assert all(b > a for a, b in zip(readings, readings[1:]))


def test_a_result_that_depends_on_the_clock_fails_the_determinism_check(monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, ClockSized.name, ClockSized)
    problem = sample_problems("shortcut")[0]
    with pytest.raises(AssertionError, match="busy machine"):
        check_same_seed_same_solution(ClockSized.name, problem)
