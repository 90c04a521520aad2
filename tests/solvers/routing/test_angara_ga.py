"""``angara-ga`` (Mukosey et al. 2021, Sect. 4.2, DEAP)."""
from __future__ import annotations

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.problems.routing import make_problem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.routing.angara_ga import RouteGenome, _full_load, bernoulli_positions, clone, creator


def run(problem, seed=0, **params):
    budget = params.pop("budget", Budget(time_s=30))
    return execute(solvers.create("angara-ga", **params), problem, seed=seed, budget=budget)


def chromosome(genome, rng):
    ind = rng.integers(0, genome.choices).astype(genome.dtype).view(creator.AngaraChromosome)
    ind.fitness = creator.AngaraFitness()
    genome.attach_load(ind)
    return ind


def full_load(genome, ind):
    out = np.empty_like(genome.base_load)
    _full_load(np.asarray(ind), genome.first_route, genome.cand.offsets, genome.cand.channels,
               genome.base_load, out)
    return out


def test_variation_operators_keep_loads_exact():
    genome = RouteGenome(make_problem("4x2x4"))
    rng = np.random.default_rng(3)
    pop = [chromosome(genome, rng) for _ in range(6)]
    for _ in range(30):
        a, b = clone(pop[rng.integers(6)]), clone(pop[rng.integers(6)])
        genome.crossover(a, b, rng)
        genome.mutate(a, 0.2, rng)
        for ind in (a, b):
            assert (np.asarray(ind) < genome.choices).all() and (np.asarray(ind) >= 0).all()
            assert np.array_equal(ind.load, full_load(genome, ind))
        pop[rng.integers(6)] = a
    # the table of a chromosome has exactly the chromosome's loads
    table = genome.table(pop[0])
    table.evaluate()
    assert np.array_equal(table.loads(), pop[0].load)


def test_bernoulli_positions():
    rng = np.random.default_rng(0)
    draws = [bernoulli_positions(1000, 0.02, rng) for _ in range(400)]
    for pos in draws:
        assert (np.diff(pos) > 0).all() and (pos < 1000).all() and (pos >= 0).all()
    mean = np.mean([len(p) for p in draws])
    assert 18 < mean < 22  # n p = 20
    counts = np.bincount(np.concatenate(draws), minlength=1000)
    assert counts[:500].sum() == pytest.approx(counts[500:].sum(), rel=0.15)
    assert len(bernoulli_positions(50, 1.0, rng)) == 50 and len(bernoulli_positions(50, 0.0, rng)) == 0


def test_reaches_the_perfect_balance_on_desmos8():
    """Table 2 (Genetic, 8 nodes): max γ = min γ = 4, σ = 0 -- the lower bound ceil(γ_perfect)."""
    problem = make_problem("4x2x2x2", subset="desmos8")
    ev = run(problem).solution.evaluate()
    assert ev.max_load == problem.load_lower_bound() == 4 and ev.sigma4 == 0.0


@pytest.mark.parametrize("spec, subset", [("4x2x2x2", "desmos16"), ("6x6", None), ("3x2x4", None)])
def test_valid_and_not_worse_than_bfs(spec, subset):
    problem = make_problem(spec, subset=subset)
    outcome = run(problem, budget=Budget(time_s=10))
    ev = outcome.solution.evaluate()
    bfs = execute(solvers.create("angara-bfs"), problem, seed=0).solution.evaluate()
    assert ev.max_load <= bfs.max_load
    values = [p.value for p in outcome.trace]
    assert values == sorted(values, reverse=True) and values[-1] == pytest.approx(ev.objective)


def test_same_seed_same_table_and_patience_stops_the_run():
    problem = make_problem("4x3")
    a = run(problem, seed=4, patience=5)
    b = run(problem, seed=4, patience=5)
    assert np.array_equal(a.solution.dirs, b.solution.dirs)
    assert a.solution.extra["generations"] < 1000


def test_search_space_and_fitness_choice():
    cls = solvers.get("angara-ga")
    assert {"population", "cxpb", "mutpb", "indpb", "tournsize"} <= set(cls.search_space())
    problem = make_problem("4x2x2x2", subset="desmos8")
    ev = run(problem, fitness="objective", tournsize=3, max_generations=20).solution.evaluate()
    assert ev.max_load >= problem.load_lower_bound()
