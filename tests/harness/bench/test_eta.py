"""``hopbench run``'s ETA, per solver: the time limit for solvers that run until it, the measured time for the
others.  Tested on simulated cell durations (no clock): the issue's example is ``--solver annealing,edgecut-full
--time-limit 3`` on the quick suite, whose one-average ETA said 1:55 with about 46 s left."""
from __future__ import annotations

import heapq
import math

import pytest

from hopbench.harness.bench.eta import CellEstimator, interleaved
from hopbench.harness.bench.runner import _declared_time_bound, cells_eta, plan_matrix
from hopbench.harness.bench.suites import load_suite


def simulated_seconds(cell: dict) -> float:
    """A cell's run time: annealing uses its whole limit (and a little more); EdgeCut-Full stops once its
    shortcuts are placed, in well under a second on these small instances (a little longer for the larger)."""
    if cell["solver"] == "annealing":
        return cell["time_limit"] + 0.05
    return 0.4 if cell["instance"].startswith("ring:16") else 0.25


def finishing_order(cells: list[dict], slots: int) -> list[tuple[float, dict]]:
    """(finish time, cell) as ``slots`` workers take the cells in order."""
    free = [0.0] * slots
    out = []
    for cell in cells:
        start = heapq.heappop(free)
        end = start + simulated_seconds(cell)
        heapq.heappush(free, end)
        out.append((end, cell))
    return sorted(out, key=lambda pair: pair[0])


@pytest.mark.parametrize("slots", [1, 2])
def test_the_eta_is_within_30_percent_after_the_first_tenth_of_the_cells(slots):
    plan = plan_matrix(load_suite("quick"), solver_names=["annealing", "edgecut-full"], time_limit=3.0)
    cells = interleaved(plan.todo)  # the order the runner starts them in
    assert {c["solver"] for c in cells} == {"annealing", "edgecut-full"} and len(cells) >= 10
    events = finishing_order(cells, slots)
    end = events[-1][0]
    estimator = CellEstimator(cells, slots, _declared_time_bound)
    run_seconds = 0.0
    tenth = math.ceil(len(cells) / 10)
    checked = 0
    for k, (now, cell) in enumerate(events, start=1):
        estimator.done(cell, simulated_seconds(cell))
        run_seconds += simulated_seconds(cell)
        if k < tenth or k == len(cells):
            continue
        actual = end - now
        eta = estimator.eta()
        assert eta is not None
        if k == tenth:  # the test
            assert abs(eta - actual) <= 0.3 * actual, (k, eta, actual)
        # later, too, except for the cells in flight, which the estimate counts whole (near the end of a
        # run with several slots, a nearly finished cell is most of what is left)
        assert abs(eta - actual) <= 0.3 * actual + (slots - 1) * 3.05, (k, eta, actual)
        checked += 1
        if k == tenth + 1:  # one average over every finished cell, the former ETA, is far off here
            old = cells_eta(len(cells) - k, run_seconds, k, slots)
            assert abs(old - actual) > 0.3 * actual, (old, actual)
    assert checked > 0


def test_time_bound_by_declaration_or_by_measurement_and_unmeasured_groups_borrow():
    cells = ([{"solver": "sa", "params": {}, "time_limit": 10.0}] * 4
             + [{"solver": "ga", "params": {}, "time_limit": 10.0}] * 4
             + [{"solver": "greedy", "params": {"t": 1}, "time_limit": 10.0}] * 4
             + [{"solver": "greedy", "params": {"t": 2}, "time_limit": 10.0}] * 4)
    est = CellEstimator(cells, 1, lambda solver: solver == "sa")
    assert est.eta() is None  # nothing measured, and not every group is time-bound
    est.done(cells[0], 10.2)
    assert est.per_cell(next(iter(est.remaining))) == 10.0  # sa: declared, its limit
    assert est.eta() == 3 * 10.0  # the others unmeasured, nothing to borrow: 0 each
    est.done(cells[4], 9.5)  # ga ran (almost) its whole limit: time-bound, measured
    est.done(cells[8], 0.5)  # greedy t=1: measured
    assert est.eta() == 3 * 10.0 + 3 * 10.0 + 3 * 0.5 + 4 * 0.5  # greedy t=2 borrows t=1's mean
    est.done(cells[12], 1.5)
    assert est.eta() == 3 * 10.0 + 3 * 10.0 + 3 * 0.5 + 3 * 1.5
    assert CellEstimator(cells[:2], 4, lambda solver: True).eta() == 10.0  # two declared cells, two slots of 4
    never = CellEstimator(cells[8:10], 1)
    never.done(cells[8], None)  # failed before it started: not measured
    assert never.eta() is None
    assert CellEstimator([], 1).eta() == 0.0


def test_annealing_declares_itself_time_bound_and_greedy_solvers_do_not():
    assert _declared_time_bound("annealing") and not _declared_time_bound("edgecut-full")
    assert not _declared_time_bound("no-such-solver")


def test_interleaving_takes_the_groups_in_turn_and_keeps_each_groups_order():
    cells = [{"solver": s, "params": {}, "n": k} for k, s in enumerate("aaab")]
    assert [(c["solver"], c["n"]) for c in interleaved(cells)] == [("a", 0), ("b", 3), ("a", 1), ("a", 2)]
    assert interleaved([]) == []
