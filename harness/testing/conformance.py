"""The solver conformance suite: the rules every solver keeps, checked on every problem kind it claims.

For each solver and each sample problem of each kind it solves
(:meth:`~hopbench.harness.problems.kind.ProblemKind.sample_problems`):

- **valid**: the solution re-validates from scratch (budget, cap, shape of the kind);
- **the time-limit rule** (:mod:`hopbench.solvers.contract.limits`): given a limit of T seconds, the
  solver returns within T + max(0.5 s, 5 % of T) while every core of the machine is kept
  busy by other processes; its kernels are compiled (warmed up) before the clock starts;
- **monotone trace**: reported values never get worse, time and evaluation counters never go back;
- **determinism**: under an evaluation budget (clock-free), the same seed gives the same solution,
  also when the solver's clock runs fast as on a busy machine (:func:`hurried_clock`);
- **sound declarations**: a description, defaults that pass their own checks, tuning ranges that
  make sense, and every point of the search space a valid setting;
- **no vacuous pass**: a solver does not decline every sample problem of a kind it claims.

Use it from pytest by subclassing :class:`SolverConformance` (see :mod:`hopbench.harness.testing`),
or call the ``check_*`` functions directly.
"""
from __future__ import annotations

import math
import os
import random
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, ClassVar, Iterator, Sequence
from unittest import mock

from hopbench import solvers
from hopbench.harness.problems.registry import get_kind, is_maximised
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.contract.limits import overrun_allowance
from hopbench.solvers.contract.warmup import warm_up_solver

#: the time limit of the timed run; short, so that the suite stays quick over many solvers
TIME_LIMIT = 2.0
#: the clock of the untimed run before the timed one (it compiles; an anytime solver stops after one evaluation)
WARM_RUN_SECONDS = 60.0
#: the clock-free budget of the determinism check
SAME_SEED_BUDGET = Budget(time_s=120, evaluations=300)


def sample_problems(kind: str) -> list[Any]:
    """The sample problems of a kind (none for a kind hopbench does not know)."""
    try:
        return list(get_kind(kind).sample_problems())
    except Exception:  # noqa: BLE001 - an unknown kind has no samples; the exercised check reports it
        return []


def conformance_cases(names: Sequence[str] | None = None) -> list[tuple[str, str, int, Any]]:
    """``(solver, kind, index, problem)`` for every sample problem of every kind each solver claims."""
    out = []
    for name in names if names is not None else solvers.names():
        for kind in solvers.get(name).kinds:
            for i, problem in enumerate(sample_problems(kind)):
                out.append((name, kind, i, problem))
    return out


@contextmanager
def busy_cores(count: int | None = None) -> Iterator[None]:
    """Keep ``count`` cores (default: all) busy with spinning processes for the duration."""
    count = (os.cpu_count() or 1) if count is None else count
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(count)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


@contextmanager
def hurried_clock(seed: int = 0, max_step_s: float = 0.002) -> Iterator[None]:
    """``time.perf_counter`` running ahead of the real clock by a random step (up to ``max_step_s``) at
    every reading, as a busy machine makes a solver's timed calls slow and uneven.

    A solver that sizes its kernel calls by the clock then sizes them differently from run to run;
    under an evaluation budget its result must not change.  (The :class:`Reporter`'s own clock, bound
    when it was defined, keeps real time, so budgets end as usual.)
    """
    real = time.perf_counter
    draw = random.Random(seed)
    lock = threading.Lock()
    ahead = 0.0

    def clock() -> float:
        nonlocal ahead
        with lock:
            ahead += draw.random() * max_step_s
            return real() + ahead

    with mock.patch("time.perf_counter", clock):
        yield


def _comparable(solution: Any) -> dict[str, Any]:
    doc = solution.to_dict()
    # timing fields legitimately differ between two runs of the same seed
    for key in ("elapsed_s", "time_s", "elapsed"):
        doc.pop(key, None)
    return doc


def check_declared_parameters(name: str) -> None:
    cls = solvers.get(name)
    assert cls.description, f"{name} has no description"
    for key, p in cls.params.items():
        assert p.coerce(key, p.default) == p.default, f"{name}: the default of {key} fails its own checks"
        if p.low is not None and p.high is not None:
            assert p.low <= p.high, f"{name}: {key} has low > high"
    for key in cls.search_space():
        assert key in cls.params
    for reading, (meaning, values) in cls.readings.items():
        assert meaning, f"{name}: reading {reading!r} does not say what it is"
        assert solvers.create(name, **values).reading() == reading, f"{name}: reading {reading!r} is not recognised"


def check_exercised(name: str) -> None:
    """A solver that declined every sample problem of a kind would pass the other checks vacuously."""
    for kind in solvers.get(name).kinds:
        problems = sample_problems(kind)
        assert problems, f"{name} claims kind {kind!r}, which has no sample problems (is the kind registered?)"
        runs = [p for p in problems if not solvers.create(name).skip(p)[0]]
        assert runs, f"{name} skips every {kind} sample problem; add one it solves"


def check_valid_within_time_limit(name: str, problem: Any, *, time_limit: float = TIME_LIMIT,
                                  loaded_cores: int | None = None) -> None:
    """Valid solution, the time-limit rule under load, and a monotone trace."""
    solver = solvers.create(name)
    skipped, reason = solver.skip(problem)
    if skipped:
        assert reason, "a solver that declines a problem must say why"
        return
    # compilation happens outside the limit, as in the runner and `hopbench solve`; the untimed first run
    # compiles (or loads from numba's cache) what this very problem needs, so its own clock is generous:
    # a solver with no partial answer (a traffic simulation) must finish it, however slow the loading
    warm_up_solver(name)
    execute(solvers.create(name), problem, seed=11, budget=Budget(time_s=WARM_RUN_SECONDS, evaluations=1))
    with busy_cores(loaded_cores):
        start = time.perf_counter()
        outcome = execute(solver, problem, seed=11, budget=Budget(time_s=time_limit))
        elapsed = time.perf_counter() - start
    allowed = time_limit + overrun_allowance(time_limit)
    assert elapsed <= allowed, (f"{name} returned after {elapsed:.2f} s on a {time_limit:g} s limit with every core "
                                f"busy; the rule allows {allowed:.2f} s")
    evaluation = outcome.solution.evaluate()  # re-validates from scratch: raises on any violation
    assert not math.isnan(evaluation.objective)
    values = [p.value for p in outcome.trace]
    if is_maximised(getattr(problem, "objective", "")):
        values = [-v for v in values]  # a throughput improves upward
    assert all(b <= a for a, b in zip(values, values[1:])), f"{name}: the trace got worse: {values}"
    assert all(b.elapsed_s >= a.elapsed_s and b.evaluations >= a.evaluations
               for a, b in zip(outcome.trace, outcome.trace[1:])), f"{name}: a trace counter went back"


def check_same_seed_same_solution(name: str, problem: Any) -> None:
    """Under an evaluation budget (clock-free), a seed fixes the solution, however fast the clock runs."""
    if solvers.create(name).skip(problem)[0]:
        return
    budget = SAME_SEED_BUDGET
    first = execute(solvers.create(name), problem, seed=5, budget=budget)
    with hurried_clock():
        second = execute(solvers.create(name), problem, seed=5, budget=budget)
    assert _comparable(first.solution) == _comparable(second.solution), \
        f"{name}: seed 5 gave two solutions, the second with a clock running fast as on a busy machine"
    if budget.evaluations and first.evaluations:
        # a solver may finish one batch past the limit, not arbitrarily far
        assert first.evaluations <= 2 * budget.evaluations + 200, f"{name} ran {first.evaluations} evaluations"


def check_search_space_points(name: str, problem: Any, *, points: int = 3, seed: int = 3) -> None:
    """Tuning draws each parameter on its own: any combination must be a valid setting."""
    import optuna

    from hopbench.harness.bench.tuning import search_space, suggest

    space = search_space(name)
    if not space:
        return
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed))
    for _ in range(points):
        trial = study.ask()
        solver = solvers.create(name, **{k: suggest(trial, k, p) for k, p in space.items()})
        if not solver.skip(problem)[0]:
            execute(solver, problem, seed=1, budget=Budget(time_s=1.0, evaluations=100)).solution.evaluate()
        study.tell(trial, 0.0)


class SolverConformance:
    """The conformance suite as a pytest test class: subclass it in a module named ``test_*.py``.

    ``solver_names`` picks the solvers (default: every registered one, plug-ins included);
    ``time_limit`` is the limit of the timed run and ``loaded_cores`` how many spinning
    processes keep the machine busy meanwhile (default: one per core).
    """

    solver_names: ClassVar[Sequence[str] | None] = None
    time_limit: ClassVar[float] = TIME_LIMIT
    loaded_cores: ClassVar[int | None] = None

    def pytest_generate_tests(self, metafunc) -> None:  # pytest calls this on the class
        import pytest

        names = list(self.solver_names) if self.solver_names is not None else solvers.names()
        if "problem" in metafunc.fixturenames:
            cases = conformance_cases(names)
            if metafunc.function.__name__ == "test_every_point_of_the_search_space_runs":
                cases = [c for c in cases if solvers.get(c[0]).search_space()]
            metafunc.parametrize("solver_name, problem", [pytest.param(n, p, id=f"{n}-{k}{i}")
                                                          for n, k, i, p in cases])
        elif "solver_name" in metafunc.fixturenames:
            metafunc.parametrize("solver_name", names)

    def test_every_selected_solver_is_registered(self) -> None:
        for name in self.solver_names or []:
            solvers.get(name)  # an unknown name is an error naming the registered ones

    def test_declared_parameters_are_sound(self, solver_name: str) -> None:
        check_declared_parameters(solver_name)

    def test_every_solver_is_exercised_on_each_kind_it_claims(self, solver_name: str) -> None:
        check_exercised(solver_name)

    def test_valid_within_time_limit_and_monotone_trace(self, solver_name: str, problem: Any) -> None:
        check_valid_within_time_limit(solver_name, problem, time_limit=self.time_limit,
                                      loaded_cores=self.loaded_cores)

    def test_same_seed_same_solution(self, solver_name: str, problem: Any) -> None:
        check_same_seed_same_solution(solver_name, problem)

    def test_every_point_of_the_search_space_runs(self, solver_name: str, problem: Any) -> None:
        check_search_space_points(solver_name, problem)
