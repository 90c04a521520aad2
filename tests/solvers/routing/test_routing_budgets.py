"""Routing solvers under budgets: where they poll, what they return when the time runs out, and the
bounds on their parameters.  A fake clock drives the budget, so no test depends on wall time."""
import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.routing import make_problem
from hopbench.solvers.contract.budget import Budget, Reporter
from hopbench.solvers.routing import dor as dor_module
from tests.harness.problems.routing.test_routing_table import dor_table


class Clock:
    """A clock that advances ``step`` seconds every time it is read after ``free`` reads."""

    def __init__(self, step: float, free: int = 0) -> None:
        self.t, self.step, self.free, self.reads = 0.0, step, free, 0

    def __call__(self) -> float:
        self.reads += 1
        if self.reads > self.free:
            self.t += self.step
        return self.t


def run(name, problem, clock, time_s=10.0, **params):
    solver = solvers.create(name, **params)
    report = Reporter(Budget(time_s=time_s), clock=clock)
    return solver.solve(problem, seed=0, budget=report.budget, report=report), report


def reference_dor_counts(problem, src, dst, tie="positive"):
    """``(P, 2n)`` steps per direction of each pair's DOR route, vectorised: the rule the compiled kernel
    must follow (this was the solver's own implementation before it was compiled)."""
    net = problem.network
    n = net.n
    cs, cd = net.coords[src], net.coords[dst]
    counts = np.zeros((len(src), 2 * n), dtype=np.int64)
    for j, k in enumerate(net.dims):
        fwd = (cd[:, j] - cs[:, j]) % k
        back = (k - fwd) % k
        if tie == "positive":
            plus = fwd <= back
        elif tie == "negative":
            plus = fwd < back
        else:
            plus = (fwd < back) | ((fwd == back) & (cs[:, j] % 2 == 0))
        if k == 2:
            plus = cs[:, j] == 0  # mesh: the only link goes + from 0 and - from 1
        counts[:, j] = np.where(plus, fwd, 0)
        counts[:, n + j] = np.where(plus, 0, back)
    return counts


@pytest.mark.parametrize("tie", dor_module.TIES)
@pytest.mark.parametrize("spec", ["4x4", "6x3x2", "4x2x2x2"])
def test_compiled_dor_gives_the_routes_of_the_reference(spec, tie):
    p = make_problem(spec)
    counts = reference_dor_counts(p, *p.pairs, tie)
    offsets, dirs = dor_module.dor_flat(p, tie=tie)
    expected = np.repeat(np.tile(np.arange(2 * p.network.n), p.num_pairs), counts.ravel())
    assert np.array_equal(dirs, expected) and np.array_equal(np.diff(offsets), counts.sum(axis=1))
    if tie == "positive":
        assert np.array_equal(dirs, dor_table(p).dirs)


def test_dor_polls_while_building_and_refuses_when_out_of_time(monkeypatch):
    monkeypatch.setattr(dor_module, "CHUNK", 100)  # 4x4x4 has 4,032 pairs: 41 calls
    polls = []
    real = Reporter.should_stop
    monkeypatch.setattr(Reporter, "should_stop", lambda self: polls.append(1) or real(self))
    table, _ = run("dor", make_problem("4x4x4"), Clock(0.0))
    assert len(polls) >= 40 and table.evaluate().max_load > 0
    with pytest.raises(HopbenchError, match="could not route the 4,032 pairs .* time limit"):
        run("dor", make_problem("4x4x4"), Clock(1.0, free=1), time_s=5.0)


def test_sssp_falls_back_to_dor_when_the_enumeration_runs_out_of_time():
    p = make_problem("4x4x4")
    table, _ = run("angara-sssp", p, Clock(1.0, free=1), time_s=3.0)
    assert table.extra["truncated_pairs"] == p.num_pairs and table.extra["sssp_calls"] == 0
    assert np.array_equal(table.dirs, dor_table(p).dirs)
    table.evaluate()  # valid


def test_sssp_keeps_time_for_the_fill_and_validation_of_large_tables(monkeypatch):
    # with a budget smaller than the reserve for its pairs, SSSP does not start the enumeration
    from hopbench.solvers.routing.angara_sssp import AngaraSSSP

    monkeypatch.setattr(AngaraSSSP, "FINISH_SECONDS_PER_PAIR", 1.0)
    p = make_problem("4x4")
    table, _ = run("angara-sssp", p, Clock(0.0), time_s=100.0)  # 240 pairs reserve 240 s
    assert table.extra["truncated_pairs"] == p.num_pairs


def test_bfs_keeps_time_for_the_dor_fill(monkeypatch):
    from hopbench.solvers.routing.angara_bfs import AngaraBFS

    monkeypatch.setattr(AngaraBFS, "FINISH_SECONDS_PER_PAIR", 1.0)
    table, _ = run("angara-bfs", make_problem("4x4"), Clock(0.0), time_s=100.0)
    assert table.extra["truncated_sources"] == 16
    table.evaluate()


def test_ga_population_is_bounded():
    with pytest.raises(HopbenchError, match="population must be <= 10000"):
        solvers.create("angara-ga", population=100_000_000)
    solvers.create("angara-ga", population=10_000)


def test_ga_declines_populations_whose_chromosomes_would_not_fit():
    solver = solvers.create("angara-ga", population=10_000)
    skipped, reason = solver.skip(make_problem("8x8x8x2"))
    assert skipped and "use a population of at most" in reason
    assert not solvers.create("angara-ga").skip(make_problem("8x8x8x2"))[0]


def test_ga_first_generation_polls_the_budget():
    p = make_problem("4x4")
    # the clock stands still while the candidates are enumerated, then every read costs a second
    table, report = run("angara-ga", p, Clock(1.0, free=40), time_s=30.0, population=10_000)
    assert table.extra["generations"] == 0
    assert 1 <= report.evaluations < 100  # the first generation was cut short, far below 10,000
    table.evaluate()


def test_ga_first_generation_is_no_larger_than_the_evaluations_left():
    solver = solvers.create("angara-ga", population=10_000)
    report = Reporter(Budget(evaluations=50))
    table = solver.solve(make_problem("4x4"), seed=0, budget=report.budget, report=report)
    assert report.evaluations == 50 and table.extra["generations"] == 0


def test_ga_returns_dor_when_the_enumeration_runs_out_of_time():
    p = make_problem("4x4x4")
    table, _ = run("angara-ga", p, Clock(1.0, free=1), time_s=3.0)
    assert table.extra["truncated_pairs"] == p.num_pairs and table.extra["generations"] == 0
    assert np.array_equal(table.dirs, dor_table(p).dirs)
