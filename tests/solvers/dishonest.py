"""Solvers that lie about their results, for the coordinator's re-verification tests (issue 34).

Loaded only through ``HOPBENCH_SOLVER_MODULES=tests.solvers.dishonest`` (in a subprocess), so they
never join the real registry or its conformance tests.  Each behaves honestly on its warm-up problems
(seed 0: every plug-in is warmed up strictly, and a lie there would fail the warm-up instead of the
cell), and lies in the cells.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution
from hopbench.solvers import register
from hopbench.solvers.contract import Param, Solver


@register
class FakeAspl(Solver):
    name = "test-fake-aspl"
    description = "adds no shortcut, then claims ASPL 1 (below every lower bound)"
    params = {"claim": Param(1.0, "the ASPL it claims", minimum=0.0, low=0.5, high=1.0)}  # so that tune runs it

    def solve(self, problem, *, seed, budget, report):
        solution = Solution(problem, np.empty((0, 2)))
        ev = solution.evaluate()
        if seed != 0:
            claim = float(self.config["claim"])
            solution.evaluation = dataclasses.replace(ev, aspl=claim, objective=claim, diameter=1)
        return solution


@register
class WrongProblem(Solver):
    name = "test-wrong-problem"
    description = "answers ring:4 whatever it is asked"

    def solve(self, problem, *, seed, budget, report):
        if seed == 0:
            return Solution(problem, np.empty((0, 2)))
        other = ShortcutProblem(parse_spec("ring:4"), problem.degree_cap, problem.budget, problem.objective,
                                base_spec="ring:4")
        solution = Solution(other, np.empty((0, 2)))
        solution.evaluate()
        return solution


@register
class FakeTrace(Solver):
    name = "test-fake-trace"
    description = "returns an honest empty solution, but its trace claims objective 0.5"

    def solve(self, problem, *, seed, budget, report):
        if seed != 0:
            report(0.5)
        return Solution(problem, np.empty((0, 2)))


@register
class FakeRoutes(Solver):
    name = "test-fake-routes"
    description = "routes by dimension order, then claims a max load of 1"
    kinds = ("routing",)

    def solve(self, problem, *, seed, budget, report):
        from hopbench import solvers

        table = solvers.create("dor").solve(problem, seed=seed, budget=budget, report=report)
        ev = table.evaluation or table.evaluate()
        if seed != 0:
            table.evaluation = dataclasses.replace(ev, max_load=1, objective=1.0)
        return table
