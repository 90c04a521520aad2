import numpy as np

import solvers
from harness.graphs.topologies import parse_spec
from harness.problems.shortcut.problem import ShortcutProblem
from solvers.contract.budget import Budget
from solvers.contract.execution import execute


def run(spec, cap, budget, seed=0):
    p = ShortcutProblem(parse_spec(spec), cap, budget, base_spec=spec)
    return execute(solvers.create("random"), p, seed=seed, budget=Budget())


def test_spends_the_budget_within_the_cap():
    out = run("torus:8x8", 10, 16)
    assert len(out.solution.shortcuts) == 16
    assert out.solution.graph.max_degree <= 10


def test_stops_when_no_feasible_pair_is_left():
    from solvers.shortcut.feasible import FeasiblePairs

    for seed in range(10):
        out = run("ring:6", 3, 10, seed=seed)  # each vertex has one free port: at most 3 chords
        assert 2 <= len(out.solution.shortcuts) <= 3
        left = FeasiblePairs(out.solution.graph, 3)
        assert len(left.all_pairs()) == 0  # maximal: nothing feasible remains


def test_seeds_differ_and_repeat():
    a = run("mesh:6x6", 8, 10, seed=1).solution.shortcuts
    b = run("mesh:6x6", 8, 10, seed=1).solution.shortcuts
    c = run("mesh:6x6", 8, 10, seed=2).solution.shortcuts
    assert np.array_equal(a, b) and not np.array_equal(a, c)
