"""The equality-ga solver: valid K-regular Equality solutions, determinism, budgets, the
genome operators keep validity, and it finds a diameter-2 network on a small instance."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.topologies import parse_spec, ring
from hopbench.harness.problems.shortcut import equality as eq
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.harness.testing.conformance import busy_cores
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.contract.limits import overrun_allowance
from hopbench.solvers.shortcut.equality_ga import IDLE_GENERATIONS, _Space


def family_problem(n: int, k: int, objective: str = "ad") -> ShortcutProblem:
    return ShortcutProblem(ring(n), k, n * (k - 2) // 2, objective, "equality", base_spec=f"ring:{n}")


def test_registered_with_a_search_space():
    cls = solvers.get("equality-ga")
    assert {"population", "cxpb", "mutpb", "tournament"} <= set(cls.search_space())


def test_solution_is_a_valid_k_regular_equality_network():
    problem = family_problem(64, 6)
    out = execute(solvers.create("equality-ga", generations=15, population=30), problem, seed=1)
    sol = out.solution
    problem.validate(sol.shortcuts)
    assert len(sol.shortcuts) == problem.budget
    g = sol.graph
    assert set(g.degree.tolist()) == {6}
    net = eq.parse(sol.extra["equality"])
    assert net.graph() == g and net.k == 6
    assert math.isclose(sol.evaluation.objective, net.metrics().ad)
    # the trace only improves and ends at the solution's value
    values = [p.value for p in out.trace]
    assert values == sorted(values, reverse=True)
    assert math.isclose(values[-1], sol.evaluation.objective)


def test_same_seed_same_solution_and_different_seeds_explore():
    problem = family_problem(100, 7)
    solver = solvers.create("equality-ga", generations=8, population=20)
    a = execute(solver, problem, seed=5).solution.extra["equality"]
    b = execute(solver, problem, seed=5).solution.extra["equality"]
    c = execute(solver, problem, seed=6).solution.extra["equality"]
    assert a == b and a != c


def test_no_global_random_state_is_used_or_changed():
    random.seed(123)
    before = random.random()
    random.seed(123)
    execute(solvers.create("equality-ga", generations=3, population=10), family_problem(40, 5), seed=0)
    assert random.random() == before


@pytest.mark.parametrize("evaluations", [1, 7, 95])
def test_evaluation_budget_is_respected_exactly(evaluations):
    out = execute(solvers.create("equality-ga", population=20), family_problem(80, 6), seed=0,
                  budget=Budget(evaluations=evaluations))
    assert out.evaluations <= evaluations


def test_time_budget_is_respected():
    with busy_cores():
        out = execute(solvers.create("equality-ga", generations=0), family_problem(200, 8), seed=0,
                      budget=Budget(time_s=0.5))
    assert out.elapsed_s <= 0.5 + overrun_allowance(0.5)  # the time-limit rule, with every core busy


def test_finds_a_diameter_two_network_like_the_paper_on_n200_k24():
    # E369 (N=200, K=24) has d=2; every d=2 network of that (N, K) has the same a
    problem = family_problem(200, 24)
    out = execute(solvers.create("equality-ga", target=eq.published_network("E369").metrics().ad + 1e-9),
                  problem, seed=0, budget=Budget(time_s=20))
    assert out.solution.evaluation.diameter == 2
    assert out.solution.evaluation.objective <= eq.published_network("E369").metrics().ad + 1e-9


def test_start_from_a_published_network_never_gets_worse():
    net = eq.published_network("E441")
    problem = family_problem(net.n, net.k)
    out = execute(solvers.create("equality-ga", start="E441", generations=3, population=12), problem, seed=0)
    assert out.solution.evaluation.objective <= net.metrics().ad + 1e-12


def test_fixed_b_keeps_the_given_bhops():
    problem = family_problem(120, 9)
    out = execute(solvers.create("equality-ga", fixed_b="20,44", generations=5, population=12), problem, seed=2)
    assert eq.parse(out.solution.extra["equality"]).bhops == (20, 44)


def test_bad_parameters_are_one_line_errors():
    problem = family_problem(120, 9)
    with pytest.raises(HopbenchError, match="odd"):
        execute(solvers.create("equality-ga", fixed_b="21", generations=1), problem, seed=0)
    with pytest.raises(HopbenchError, match="N=2048"):
        execute(solvers.create("equality-ga", start="E361", generations=1), problem, seed=0)


def test_skips_problems_that_are_not_an_even_ring():
    solver = solvers.create("equality-ga")
    torus = ShortcutProblem(parse_spec("torus:4x4"), 6, 8, "ad")
    assert solver.skip(torus)[0]
    # a plain (non-family) problem with the family's shape is accepted
    assert not solver.skip(ShortcutProblem(ring(64), 6, 128, "ad"))[0]


def test_other_objectives_are_minimised_too():
    out = execute(solvers.create("equality-ga", generations=5, population=10), family_problem(60, 6, "aspl"),
                  seed=0)
    assert math.isclose(out.solution.evaluation.objective, out.solution.evaluation.aspl)


@pytest.mark.parametrize("seed", range(12))
def test_operators_keep_genomes_valid(seed):
    rng = random.Random(seed)
    n = rng.choice([16, 18, 64, 66, 130])
    k = rng.randint(3, min(12, n // 2))
    space = _Space(n, k, None, rng)

    def check(genes):
        genes = sorted(genes)
        assert len(set(genes)) == len(genes)
        assert space.genome_cost(genes) == k - 2
        odd = [-1, 1] + [v for v in genes if v % 2]
        even = [v for v in genes if v % 2 == 0]
        assert eq.EqualityNetwork(n, odd, even, k=k).k == k  # validates every rule
        return genes

    pop = [check(space.random_genome(0.5)) for _ in range(8)]
    for _ in range(60):
        a, b = rng.sample(pop, 2)
        child = check(space.crossover(a, b))
        child = check(space.mutate(child, 0.2, directed=0.5))
        pop[rng.randrange(len(pop))] = child


def test_directed_move_brings_a_farthest_router_closer_or_declines():
    rng = random.Random(0)
    space = _Space(200, 8, None, rng)
    genes = sorted(space.random_genome(0.3))
    before = eq.EqualityNetwork(200, [-1, 1] + [v for v in genes if v % 2], [v for v in genes if v % 2 == 0])
    d_before = before.metrics()
    improved = 0
    for _ in range(30):
        moved = space.directed(genes)
        if moved is None:
            continue
        moved = sorted(moved)
        net = eq.EqualityNetwork(200, [-1, 1] + [v for v in moved if v % 2], [v for v in moved if v % 2 == 0], k=8)
        m = net.metrics()
        improved += m.levels[-1] < d_before.levels[-1] or m.diameter < d_before.diameter
    assert improved > 0


def test_batch_kernel_matches_the_single_evaluator():
    from hopbench.solvers.shortcut.equality_ga import _evaluate_batch

    rng = np.random.default_rng(0)
    space = _Space(130, 9, None, random.Random(1))
    genomes = [sorted(space.random_genome(0.5)) for _ in range(10)]
    width = max(map(len, genomes))
    values = np.zeros((10, width), dtype=np.int64)
    for i, g in enumerate(genomes):
        values[i, :len(g)] = g
    total = np.empty(10, dtype=np.int64)
    diam = np.empty(10, dtype=np.int64)
    _evaluate_batch(130, values, np.array([len(g) for g in genomes]), np.zeros(0, np.int64), total, diam)
    for g, t, d in zip(genomes, total, diam):
        m = eq.evaluate_links(130, [1, 129] + [v for v in g if v % 2], [v for v in g if v % 2 == 0])
        assert (m.total, m.diameter) == (t, d)
    del rng


def test_fitness_cache_overflow_keeps_the_population(monkeypatch):
    import hopbench.solvers.shortcut.equality_ga as ga

    monkeypatch.setattr(ga, "CACHE_LIMIT", 30)
    out = execute(solvers.create("equality-ga", generations=20, population=16), family_problem(80, 6), seed=0)
    problem_value = out.solution.evaluation.objective
    assert out.evaluations > 30 and math.isfinite(problem_value)


def test_a_tiny_exhausted_space_ends_early_and_deterministically():
    # ring:12 with cap 3 has only five Equality networks (one free port)
    problem = ShortcutProblem(ring(12), 3, 6, "ad")
    budget = Budget(time_s=30, evaluations=300)
    a = execute(solvers.create("equality-ga"), problem, seed=5, budget=budget)
    b = execute(solvers.create("equality-ga"), problem, seed=5, budget=budget)
    # ended with the space (idle generations), not on the 300 evaluations or the 30 s
    assert a.evaluations <= 5 and a.solution.extra["generations"] <= IDLE_GENERATIONS + 5
    assert a.solution.to_dict()["extra"] == b.solution.to_dict()["extra"]
