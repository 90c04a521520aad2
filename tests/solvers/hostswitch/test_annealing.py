"""hostswitch-annealing: valid graphs, better than its start, the switch count as a decision, the optimum's stop."""
from __future__ import annotations

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.problems.hostswitch import bounds
from hopbench.harness.problems.hostswitch.problem import HostSwitchProblem
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.hostswitch import _kernel as K
from hopbench.solvers.hostswitch.annealing import Run, candidate_counts


def run(problem, evaluations=3000, seed=1, **params):
    return execute(solvers.create("hostswitch-annealing", **params), problem, seed=seed,
                   budget=Budget(time_s=60, evaluations=evaluations))


def test_random_start_is_connected_and_within_ports():
    rng = np.array([np.uint64(3)], dtype=np.uint64)
    for n, r, m in [(32, 4, 15), (32, 4, 26), (100, 10, 30), (16, 3, 14)]:
        start = Run.start(HostSwitchProblem(n, r), m, rng)
        assert start.cur[K.V_R] == 0, (n, r, m)
        assert (start.deg + start.hosts <= r).all() and start.hosts.sum() == n
        # every port that could be linked is, but for a few the random draws could not pair
        assert (r * m - n - start.deg.sum()) <= 4


def test_improves_on_its_start_and_is_valid():
    outcome = run(HostSwitchProblem(80, 6), evaluations=4000)
    ev = outcome.solution.evaluate()
    values = [p.value for p in outcome.trace]
    assert values[-1] < values[0]
    assert ev.h_diameter <= 6  # ORP's random sample graph of this pair has 7
    assert outcome.solution.extra["switches"] in outcome.solution.extra["candidates"]


def test_switch_count_is_searched_or_fixed():
    problem = HostSwitchProblem(80, 6)
    m = bounds.best_switch_count(80, 6)
    assert candidate_counts(problem, 0, True, 0.1) == [m, round(0.9 * m), round(1.1 * m)]
    assert run(problem, evaluations=500, switches=30).solution.switches == 30
    fixed = HostSwitchProblem(80, 6, switches=25)
    assert run(fixed, evaluations=500).solution.switches == 25


def test_h_aspl_objective_may_trade_the_diameter():
    outcome = run(HostSwitchProblem(48, 5, objective="h_aspl"), evaluations=2000)
    ev = outcome.solution.evaluate()
    assert ev.objective == ev.h_aspl


@pytest.mark.parametrize("n, r", [(6, 4), (5, 6)])
def test_stops_at_the_lower_bound(n, r):
    # (6, 4): two switches of three hosts meet the bound (2.6); (5, 6): one switch
    outcome = run(HostSwitchProblem(n, r), evaluations=100_000)
    ev = outcome.solution.evaluate()
    assert (ev.h_diameter, ev.h_aspl) == pytest.approx(bounds.lower_bounds(n, r))
    assert outcome.solution.extra["optimal"]
    assert outcome.evaluations < 100_000


@pytest.mark.parametrize("n, r, m, objective", [(80, 6, 33, "h_golf"), (300, 12, 70, "h_golf"),
                                                (48, 5, 20, "h_aspl"), (200, 4, 150, "h_golf")])
def test_stopping_evaluations_early_walks_the_same_walk(n, r, m, objective):
    # (200, 4) on 150 switches: sources in three blocks of 64 (a narrow workspace below)
    ends = []
    for bounded in (False, True):
        state = Run.start(HostSwitchProblem(n, r, objective=objective), m, np.array([np.uint64(9)], dtype=np.uint64))
        if m > 100:
            state.work = (np.zeros((m, 1), np.uint64), np.zeros((m, 1), np.uint64), np.zeros((16, 1), np.uint64))
        state.calibrate(0.5)
        state.anneal(1500, golf=objective == "h_golf", swing_share=0.5, k0=0, k_total=1500, p0=0.0, p1=0.0, t0=0.5,
                     t1=0.01, bounded=bounded)
        ends.append((state.best.tolist(), state.best_nbr.tolist(), state.hosts.tolist(), int(state.stats[K.ST_EARLY])))
    assert ends[0][:3] == ends[1][:3]
    assert ends[0][3] == 0 and ends[1][3] > 0
