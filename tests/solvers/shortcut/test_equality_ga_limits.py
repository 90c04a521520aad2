"""equality-ga keeps its time limit and its sizes: the first population, the evaluation batches and
breeding poll the limit, the search leaves room for the final decode, and the population and the
network's N*K/2 links are refused up front.

The clock is a fake one the tests move (no wall times are asserted); the probe's timings are in
the notes: ring:200,000 K=4 took 0.34 s per unpolled batch of 100 genomes, population=100,000 on
ring:4800 K=38 ran 10 s past a 5 s limit before these polls.
"""
from __future__ import annotations

import pytest

from hopbench import solvers
import hopbench.solvers.shortcut.equality_ga as ga
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.topologies import ring
from hopbench.harness.problems.shortcut import equality as eq
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.solvers.contract.budget import Budget, Reporter


def family_problem(n: int, k: int, family: str | None = "equality") -> ShortcutProblem:
    return ShortcutProblem(ring(n), k, n * (k - 2) // 2, "ad", family, base_spec=f"ring:{n}")


class FakeClock:
    """A clock that only moves when told to (``now`` seconds)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def run(solver, problem, clock: FakeClock, time_s: float = 10.0, seed: int = 0):
    budget = Budget(time_s=time_s)
    report = Reporter(budget, clock=clock)
    solution = solver.solve(problem, seed=seed, budget=budget, report=report)
    return solution, report


def assert_valid(problem: ShortcutProblem, solution) -> None:
    problem.validate(solution.shortcuts)
    assert len(solution.shortcuts) == problem.budget
    assert eq.parse(solution.extra["equality"]).k == problem.degree_cap


def test_drawing_the_first_population_stops_at_the_time_limit(monkeypatch):
    clock = FakeClock()
    drawn = []
    original = ga._Space.random_genome

    def slow_draw(self, *args, **kwargs):
        drawn.append(1)
        clock.now += 0.01  # each genome "takes" 10 ms: 100 of them fill the 1 s limit
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ga._Space, "random_genome", slow_draw)
    problem = family_problem(200, 8)
    solution, report = run(solvers.create("equality-ga", population=5000), problem, clock, time_s=1.0)
    assert 90 <= len(drawn) <= 110  # not the 5,000 asked for
    assert report.evaluations <= len(drawn)
    assert_valid(problem, solution)


def timed_batches(monkeypatch, clock: FakeClock, after) -> list[int]:
    """The genomes of every scoring call, in order; ``after(clock)`` moves the clock once a call is done."""
    rows = []
    original = ga._evaluate_batch

    def batch(n, values, *args):
        rows.append(values.shape[0])
        original(n, values, *args)
        after(clock)

    monkeypatch.setattr(ga, "_evaluate_batch", batch)
    return rows


def test_evaluation_stops_between_batches_once_time_is_up(monkeypatch):
    clock = FakeClock()
    rows = timed_batches(monkeypatch, clock, lambda c: setattr(c, "now", 100.0))  # the first batch used it all
    problem = family_problem(200, 8)
    solution, report = run(solvers.create("equality-ga", population=400), problem, clock)
    # one batch (a few genomes, one per thread), not the whole population in one unpolled call
    assert len(rows) == 1 and rows[0] < 400
    assert report.evaluations == rows[0]
    assert solution.extra["generations"] == 0
    assert_valid(problem, solution)


def test_breeding_a_generation_stops_at_the_time_limit(monkeypatch):
    clock = FakeClock()
    mates = []
    original = ga._Space.crossover

    def mate(self, a, b):
        mates.append(1)
        clock.now = 100.0  # one crossover used the whole limit
        return original(self, a, b)

    monkeypatch.setattr(ga._Space, "crossover", mate)
    problem = family_problem(200, 8)
    solver = solvers.create("equality-ga", population=400, cxpb=1.0)
    solution, _ = run(solver, problem, clock)
    assert len(mates) == 2  # the first pair's two children, not 200 pairs
    assert solution.extra["generations"] == 1
    assert_valid(problem, solution)


def test_the_search_leaves_room_for_the_final_decode(monkeypatch):
    clock = FakeClock()
    # each batch "takes" 1/8 s (exact in binary, so no rounding at 1 s)
    rows = timed_batches(monkeypatch, clock, lambda c: setattr(c, "now", c.now + 0.125))
    problem = family_problem(200, 8)  # 800 links: a decode "taking" 0.8 s, 80% of the 1 s limit
    monkeypatch.setattr(ga, "DECODE_SECONDS_PER_LINK", 1e-3)
    solution, _ = run(solvers.create("equality-ga", population=20), problem, clock, time_s=1.0)
    assert len(rows) == 2  # stopped at 0.25 s, when less than the decode's 0.8 s were left
    assert_valid(problem, solution)
    rows.clear()
    clock.now = 0.0
    monkeypatch.setattr(ga, "DECODE_SECONDS_PER_LINK", 0.0)
    run(solvers.create("equality-ga", population=20), problem, clock, time_s=1.0)
    assert len(rows) == 8  # without a decode to leave room for, the search uses the whole second


def test_population_has_a_maximum():
    assert solvers.get("equality-ga").params["population"].maximum == ga.POPULATION_MAX
    solvers.create("equality-ga", population=ga.POPULATION_MAX)
    for population in (ga.POPULATION_MAX + 1, 10_000_000):
        with pytest.raises(HopbenchError, match="population must be <="):
            solvers.create("equality-ga", population=population)
    with pytest.raises(HopbenchError, match="tournament must be <="):
        solvers.create("equality-ga", tournament=10**9)


def test_population_times_genome_length_is_capped_before_drawing(monkeypatch):
    monkeypatch.setattr(ga, "POPULATION_VALUES", 1_000)
    monkeypatch.setattr(ga._Space, "__init__", lambda *a: pytest.fail("the genome space was built"))
    with pytest.raises(HopbenchError, match=r"population=100 with K=20 holds 1,800 link values.*population <= 55"):
        run(solvers.create("equality-ga", population=100), family_problem(200, 20), FakeClock())
    # the runner asks skip() first: such a cell is declined, not an error
    skipped, reason = solvers.create("equality-ga", population=100).skip(family_problem(200, 20))
    assert skipped and "1,800 link values" in reason
    assert solvers.create("equality-ga", population=50).skip(family_problem(200, 20)) == (False, "")


def test_a_network_above_the_edge_cap_is_refused_before_the_search(monkeypatch):
    monkeypatch.setenv("HOPBENCH_MAX_EDGES", "1000")
    # ring:200 with K=12 has N*K/2 = 1,200 links; the family problem itself is refused ...
    with pytest.raises(HopbenchError, match="N\\*K/2 is 1,200, above the cap of 1,000 edges") as info:
        family_problem(200, 12)
    assert "\n" not in str(info.value) and "HOPBENCH_MAX_EDGES" in str(info.value)
    # ... and the solver declines a family-less ring problem of that size with the same reason
    solver = solvers.create("equality-ga")
    skipped, reason = solver.skip(family_problem(200, 12, family=None))
    assert skipped and "N*K/2 is 1,200" in reason and "HOPBENCH_MAX_EDGES" in reason
    # ... and refuses it in solve() too, before drawing any genome
    monkeypatch.setattr(ga._Space, "__init__", lambda *a: pytest.fail("the genome space was built"))
    with pytest.raises(HopbenchError, match="N\\*K/2 is 1,200"):
        run(solver, family_problem(200, 12, family=None), FakeClock())


def test_under_an_evaluation_budget_the_batch_sizes_change_nothing(monkeypatch):
    # a cache bounded to 2 x population evicts often; eviction must not depend on how the generation was
    # split into kernel calls (the split follows measured time), or a seed would not fix the result
    monkeypatch.setattr(ga, "CACHE_LIMIT", 1)
    monkeypatch.setattr(ga, "CACHE_VALUES", 1)
    problem = family_problem(16, 5)  # a small genome space: children often repeat a genome seen before
    for seed in (1, 2):  # both gave different networks when eviction ran between batches
        results = []
        for seconds in (1e-12, 1e9):  # one genome per kernel call, then whole generations
            monkeypatch.setattr(ga, "BATCH_SECONDS", seconds)
            budget = Budget(evaluations=600)
            solution = solvers.create("equality-ga", population=12).solve(problem, seed=seed, budget=budget,
                                                                           report=Reporter(budget))
            results.append(sorted(map(tuple, solution.shortcuts.tolist())))
        assert results[0] == results[1], seed
