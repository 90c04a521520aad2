import numpy as np

from hopbench import solvers
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute


def run(spec, cap, budget, seed=0):
    p = ShortcutProblem(parse_spec(spec), cap, budget, base_spec=spec)
    return execute(solvers.create("random"), p, seed=seed, budget=Budget())


def test_spends_the_budget_within_the_cap():
    out = run("torus:8x8", 10, 16)
    assert len(out.solution.shortcuts) == 16
    assert out.solution.graph.max_degree <= 10


def test_stops_when_no_feasible_pair_is_left():
    from hopbench.solvers.shortcut.feasible import FeasiblePairs

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


class StepClock:
    """A clock that moves ``step`` seconds at every reading: the time limit arrives after a known number of checks."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def solve_with(problem, clock_step, time_s=1.0):
    from hopbench.solvers.contract.budget import Reporter

    budget = Budget(time_s=time_s)
    report = Reporter(budget, clock=StepClock(clock_step))
    solution = solvers.create("random").solve(problem, seed=1, budget=budget, report=report)
    return solution, report


def test_a_finished_graph_reports_its_value():
    p = ShortcutProblem(parse_spec("ring:40"), 3, 10, base_spec="ring:40")
    solution, report = solve_with(p, 0.001)
    assert len(solution.shortcuts) == 10 and solution.extra["stopped"] == "budget"
    assert [pt.value for pt in report.trace] == [solution.evaluate().objective]


def test_a_run_the_clock_stops_returns_its_graph_unevaluated():
    # evaluating 10,000 vertices after the limit would overrun it: the harness evaluates the result
    p = ShortcutProblem(parse_spec("ring:40"), 3, 10, base_spec="ring:40")
    solution, report = solve_with(p, 0.25)  # the limit arrives after three draws
    assert 0 < len(solution.shortcuts) < 10 and solution.extra["stopped"] == "time limit"
    assert report.trace == [] and getattr(solution, "evaluation", None) is None
    assert execute(solvers.create("random"), p, seed=1, budget=Budget()).solution.evaluation is not None


def test_no_evaluation_when_its_estimate_exceeds_the_time_left(monkeypatch):
    import hopbench.solvers.shortcut.random_shortcuts as module

    p = ShortcutProblem(parse_spec("ring:40"), 3, 10, base_spec="ring:40")
    monkeypatch.setattr(module, "summary_seconds_estimate", lambda g: 1e9)
    solution, report = solve_with(p, 0.001)
    assert len(solution.shortcuts) == 10 and report.trace == []
    monkeypatch.setattr(module, "summary_seconds_estimate", lambda g: 0.5)
    solution, report = solve_with(p, 0.001)
    assert len(report.trace) == 1
