"""Solvers that misbehave on purpose, for the runner's failure-handling tests.

Loaded only through ``HOPBENCH_SOLVER_MODULES=tests.solvers.misbehaving`` (in a
subprocess), so they never join the real registry or its conformance tests.
"""
from __future__ import annotations

import os
import time

import numpy as np

from hopbench.harness.problems.shortcut.problem import Solution
from hopbench.solvers import register
from hopbench.solvers.contract import Param, Solver


@register
class Sleeper(Solver):
    name = "test-sleeper"
    description = "warms up, then ignores its time budget and sleeps"

    def solve(self, problem, *, seed, budget, report):
        # seed 0 is the warm-up, which every plug-in now gets (a sleeping warm-up: tests/harness/bench/
        # test_hard_limits.py); the cells' runs are killed at the hard limit
        if seed != 0:
            time.sleep(3600)
        return Solution(problem, np.empty((0, 2)))


@register
class Raiser(Solver):
    name = "test-raiser"
    description = "raises an exception"

    def solve(self, problem, *, seed, budget, report):
        raise RuntimeError("boom: deliberate failure")


@register
class Crasher(Solver):
    name = "test-crasher"
    description = "kills its own process"

    def solve(self, problem, *, seed, budget, report):
        os._exit(3)


@register
class Slow(Solver):
    name = "test-slow"
    description = "a well-behaved solver that takes a while (no shortcuts)"
    params = {"seconds": Param(0.4, "how long to work", minimum=0.0, low=0.05, high=0.5)}

    def solve(self, problem, *, seed, budget, report):
        # seed 0 is the warm-up (as for test-sleeper): its 11 problems at 0.4 s each would add 4.4 s of sleep to
        # every sandbox and tuning worker, and no test times the warm-up
        end = time.monotonic() + (self.config["seconds"] if seed != 0 else 0.0)
        while time.monotonic() < end and not report.should_stop():
            time.sleep(0.02)
        solution = Solution(problem, np.empty((0, 2)))
        report(solution.evaluate().objective)
        return solution


@register
class Hold(Solver):
    name = "test-hold"
    description = "works until its budget ends or the file named by $HOPBENCH_TEST_HOLD is gone"
    params = {"x": Param(1.0, "a parameter to tune (unused)", low=0.5, high=2.0)}

    def solve(self, problem, *, seed, budget, report):
        hold = os.environ.get("HOPBENCH_TEST_HOLD", "")
        while seed != 0 and hold and os.path.exists(hold) and not report.should_stop():
            time.sleep(0.02)
        solution = Solution(problem, np.empty((0, 2)))
        report(solution.evaluate().objective)
        return solution
