"""The conformance suite: every registered solver, automatically.

For each solver and each small problem of a kind it solves: the solution is
valid, the same seed gives the same solution, the time budget is respected,
and the anytime trace never gets worse.
"""
from __future__ import annotations

import math
import time

import pytest

import solvers
from harness.budget import Budget
from harness.execution import execute
from harness.problem import ShortcutProblem
from harness.topologies import parse_spec

# generous slack over the time budget: one kernel call or a final evaluation may
# overrun the poll by a little, never by a lot
TIME_LIMIT = 2.0
TIME_SLACK = 3.0


def _shortcut_problems():
    def make(spec, cap, budget, objective="aspl", family=None):
        return ShortcutProblem(parse_spec(spec), cap, budget, objective, family, base_spec=spec)

    return [
        make("ring:16", 4, 4),
        make("torus:4x4", 6, 4, "golf"),
        make("mesh:3x4", 5, 5, "diameter"),
        make("ring:12", 3, 6, "ad"),
        make("empty:10", 3, 12),
        make("ring:24", 5, 36, "ad", "equality"),  # N(K-2)/2 = 36: an Equality-family problem
    ]


def _routing_problems():
    try:
        from harness import routing
    except ModuleNotFoundError:
        return []
    return list(routing.sample_problems())


PROBLEMS = {"shortcut": _shortcut_problems, "routing": _routing_problems}


def _cases():
    for name in solvers.names():
        cls = solvers.get(name)
        for kind in cls.kinds:
            for i, problem in enumerate(PROBLEMS.get(kind, lambda: [])()):
                yield pytest.param(name, problem, id=f"{name}-{kind}{i}")


CASES = list(_cases())


def _comparable(solution) -> dict:
    doc = solution.to_dict()
    # timing fields legitimately differ between two runs of the same seed
    for key in ("elapsed_s", "time_s", "elapsed"):
        doc.pop(key, None)
    return doc


def test_every_registered_solver_is_covered():
    covered = {c.values[0] for c in CASES}
    assert covered == set(solvers.names())


@pytest.mark.parametrize("name", solvers.names())
def test_every_solver_is_exercised_on_each_kind_it_claims(name):
    """A solver that skipped every sample problem of a kind would pass the tests below vacuously."""
    for kind in solvers.get(name).kinds:
        runs = [p for p in PROBLEMS[kind]() if not solvers.create(name).skip(p)[0]]
        assert runs, f"{name} skips every {kind} sample problem; add one it solves"


@pytest.mark.parametrize("name, problem", CASES)
def test_valid_within_time_budget_and_monotone_trace(name, problem):
    solver = solvers.create(name)
    skipped, reason = solver.skip(problem)
    if skipped:
        assert reason, "a solver that skips must say why"
        return
    # an untimed first call compiles the solver's numba kernels (cached on disk afterwards),
    # as the runner's warm-up does, so the limit below measures the solver and not the JIT
    execute(solvers.create(name), problem, seed=11, budget=Budget(time_s=0.5, evaluations=1))
    start = time.perf_counter()
    outcome = execute(solver, problem, seed=11, budget=Budget(time_s=TIME_LIMIT))
    elapsed = time.perf_counter() - start
    assert elapsed <= TIME_LIMIT + TIME_SLACK, f"{name} ran {elapsed:.2f}s on a {TIME_LIMIT}s budget"

    # valid: evaluate() validates from scratch and raises on any violation
    evaluation = outcome.solution.evaluate()
    assert not math.isnan(evaluation.objective)
    if problem.kind == "shortcut":
        assert len(outcome.solution.shortcuts) <= problem.budget

    # trace: never gets worse, time and evaluation counters never go back
    values = [p.value for p in outcome.trace]
    assert all(b <= a for a, b in zip(values, values[1:])), values
    assert all(b.elapsed_s >= a.elapsed_s and b.evaluations >= a.evaluations
               for a, b in zip(outcome.trace, outcome.trace[1:]))


@pytest.mark.parametrize("name, problem", CASES)
def test_same_seed_same_solution(name, problem):
    """Under an evaluation budget (clock-free), a seed fixes the solution."""
    if solvers.create(name).skip(problem)[0]:
        return
    budget = Budget(time_s=120, evaluations=300)
    first = execute(solvers.create(name), problem, seed=5, budget=budget)
    second = execute(solvers.create(name), problem, seed=5, budget=budget)
    assert _comparable(first.solution) == _comparable(second.solution)
    if budget.evaluations and first.evaluations:
        # a solver may finish one batch past the limit, not arbitrarily far
        assert first.evaluations <= 2 * budget.evaluations + 200


@pytest.mark.parametrize("name", solvers.names())
def test_declared_parameters_are_sound(name):
    cls = solvers.get(name)
    assert cls.description
    for key, p in cls.params.items():
        assert p.coerce(key, p.default) == p.default
        if p.low is not None and p.high is not None:
            assert p.low <= p.high
    for key in cls.search_space():
        assert key in cls.params


SPACE_CASES = [c for c in CASES if solvers.get(c.values[0]).search_space()]


@pytest.mark.parametrize("name, problem", SPACE_CASES)
def test_every_point_of_the_search_space_runs(name, problem):
    """Tuning draws each parameter on its own: any combination must be a valid setting."""
    import optuna

    from harness.tuning import search_space, suggest

    space = search_space(name)
    sampler = optuna.samplers.RandomSampler(seed=3)
    study = optuna.create_study(sampler=sampler)
    for _ in range(3):
        trial = study.ask()
        values = {k: suggest(trial, k, p) for k, p in space.items()}
        solver = solvers.create(name, **values)
        if solver.skip(problem)[0]:
            continue
        out = execute(solver, problem, seed=1, budget=Budget(time_s=1.0, evaluations=100))
        out.solution.evaluate()
        study.tell(trial, 0.0)
