"""Shortcut solvers on Graph Golf's empty bases: the time-limit rule on every graphgolf instance, and
disconnected states ranked by their unreachable pairs first.

The conformance suite (:mod:`hopbench.harness.testing.conformance`) checks the rule on small sample
problems; the order/degree instances add what those lack: an empty base (every state is
disconnected until the budget is nearly spent) and up to 10,000 vertices, where one setup step
(a dense distance matrix, a regular start) must not outlast the limit.  A short limit keeps the
36 x 7 runs quick; the allowance past it is the same half second as at the conformance suite's 1 s.
"""
from __future__ import annotations

import math

import pytest

from hopbench import solvers
from hopbench.harness.bench.suites import load_suite
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.contract.limits import overrun_allowance
from hopbench.solvers.contract.warmup import warm_up_solver

LIMIT = 0.5
SHORTCUT_SOLVERS = [name for name in solvers.names() if "shortcut" in solvers.get(name).kinds]


def test_the_suite_is_the_order_degree_problem():
    instances = load_suite("graphgolf").instances
    assert len(instances) == 36 and max(i.size() for i in instances) == 10_000
    assert {"annealing", "edgecut-full", "edgecut-lite", "vrs", "random", "random-matching"} <= set(SHORTCUT_SOLVERS)


@pytest.mark.parametrize("name", SHORTCUT_SOLVERS)
def test_time_limit_rule_on_every_graphgolf_instance(name):
    warm_up_solver(name)  # compilation happens outside the limit, as in the runner
    allowed = LIMIT + overrun_allowance(LIMIT)
    late, ran = [], 0
    for inst in load_suite("graphgolf").instances:
        problem = inst.problem()
        skipped, reason = solvers.create(name).skip(problem)
        if skipped:
            assert reason, f"{name} declined {inst.id} without saying why"
            continue
        out = execute(solvers.create(name), problem, seed=1, budget=Budget(time_s=LIMIT))
        ran += 1
        evaluation = out.solution.evaluation  # execute validated the solution from scratch
        assert evaluation is not None and not math.isnan(evaluation.objective), inst.id
        if out.elapsed_s > allowed:
            late.append(f"{inst.id}: {out.elapsed_s:.2f} s")
    assert not late, f"{name} overran {LIMIT} s (allowed {allowed} s) on: " + "; ".join(late)
    if name in ("annealing", "edgecut-full", "edgecut-lite", "vrs", "random", "random-matching"):
        assert ran == 36, f"{name} ran {ran} of the 36 instances"


@pytest.mark.parametrize("name, params", [("edgecut-full", {"t": 0}), ("annealing", {})])  # milp declines: no connected base
def test_a_budget_too_small_to_connect_leaves_the_fewest_unreachable_pairs(name, params):
    # empty:12, 8 edges: at best a tree on 9 vertices and 3 isolated ones, C(12,2) - C(9,2) = 30 pairs
    # apart.  A solver that ranks states by their unreachable pairs first finds it; one that compared
    # only the (infinite) objective of two disconnected states could not tell them apart.
    from hopbench.harness.graphs.topologies import parse_spec
    from hopbench.harness.problems.shortcut.problem import ShortcutProblem

    problem = ShortcutProblem(parse_spec("empty:12"), 3, 8, "aspl", base_spec="empty:12")
    solver = solvers.create(name, **params)
    skipped, reason = solver.skip(problem)
    assert not skipped, reason
    out = execute(solver, problem, seed=1, budget=Budget(time_s=30, evaluations=20_000))
    assert out.solution.evaluation.unreachable_pairs == 30
