"""random-matching: Koibuchi et al.'s random perfect matchings, best of several samples."""
from __future__ import annotations

import numpy as np
import pytest

from hopbench import solvers
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.problem import ShortcutProblem
from hopbench.harness.testing.conformance import busy_cores
from hopbench.solvers.contract.budget import Budget
from hopbench.solvers.contract.execution import execute
from hopbench.solvers.contract.limits import overrun_allowance
from hopbench.solvers.shortcut.random_matching import _fill


def problem(spec: str, cap: int, budget: int, objective: str = "golf") -> ShortcutProblem:
    return ShortcutProblem(parse_spec(spec), cap, budget, objective, base_spec=spec)


def degrees(out) -> np.ndarray:
    return out.solution.graph.degree


@pytest.mark.parametrize("spec, cap", [("ring:64", 6), ("torus:8x8", 7), ("hypercube:6", 10), ("ring:30", 29)])
def test_reaches_the_regular_degree(spec, cap):
    p = problem(spec, cap, 10_000)
    out = execute(solvers.create("random-matching", samples=3), p, seed=1)
    assert (degrees(out) == cap).all()
    p.validate(out.solution.shortcuts)


def test_odd_number_of_missing_ports_leaves_one_free():
    out = execute(solvers.create("random-matching", samples=3), problem("ring:65", 5, 10_000), seed=1)
    assert np.bincount(degrees(out)).tolist() == [0, 0, 0, 0, 1, 64]


def test_y_sets_the_target_degree_below_the_cap():
    out = execute(solvers.create("random-matching", samples=2, y=2), problem("ring:64", 10, 10_000), seed=1)
    assert (degrees(out) == 4).all() and len(out.solution.shortcuts) == 64


def test_short_budget_fills_level_by_level():
    # 16 shortcuts cannot make torus:8x8 5-regular: every shortcut joins two degree-4 vertices
    out = execute(solvers.create("random-matching", samples=5), problem("torus:8x8", 10, 16), seed=3)
    assert len(out.solution.shortcuts) == 16
    assert np.bincount(degrees(out)).tolist() == [0, 0, 0, 0, 32, 32]


def test_irregular_base_is_made_as_regular_as_the_budget_allows():
    # mesh corners (degree 2) and sides (degree 3) take shortcuts before the inside does
    out = execute(solvers.create("random-matching", samples=5), problem("mesh:6x6", 10, 14), seed=3)
    deg = degrees(out)
    assert len(out.solution.shortcuts) == 14 and deg.min() >= 3
    full = execute(solvers.create("random-matching", samples=2), problem("mesh:6x6", 4, 1000), seed=3)
    assert (degrees(full) == 4).all()


def test_keeps_the_best_sample_by_diameter_then_aspl():
    out = execute(solvers.create("random-matching", samples=30), problem("ring:64", 4, 10_000, "aspl"), seed=7)
    ev = out.solution.evaluation
    ex = out.solution.extra
    best = min(zip(ex["sample_diameters"], ex["sample_aspls"]))
    assert (ev.diameter, ev.aspl) == pytest.approx(best)
    assert ex["samples_drawn"] == 30 and len(set(ex["sample_aspls"])) > 1
    # the only trace point is the kept sample (its ASPL may exceed a discarded sample's)
    assert [pt.value for pt in out.trace] == pytest.approx([ev.aspl])
    by_objective = execute(solvers.create("random-matching", samples=30, select="objective"),
                           problem("ring:64", 4, 10_000, "aspl"), seed=7)
    assert by_objective.solution.evaluation.aspl == pytest.approx(min(ex["sample_aspls"]))


def test_same_seed_same_edges_and_monotone_trace():
    p = problem("torus:6x6", 7, 10_000)
    a = execute(solvers.create("random-matching", samples=8), p, seed=5)
    b = execute(solvers.create("random-matching", samples=8), p, seed=5)
    assert np.array_equal(a.solution.shortcuts, b.solution.shortcuts)
    values = [pt.value for pt in a.trace]
    assert values == sorted(values, reverse=True)
    assert values[-1] == pytest.approx(a.solution.evaluation.objective)
    c = execute(solvers.create("random-matching", samples=8), p, seed=6)
    assert not np.array_equal(a.solution.shortcuts, c.solution.shortcuts)


def test_budgets_are_respected():
    p = problem("ring:512", 8, 10_000)
    out = execute(solvers.create("random-matching", samples=1000), p, seed=0, budget=Budget(evaluations=3))
    assert out.solution.extra["samples_drawn"] == 3
    with busy_cores():
        out = execute(solvers.create("random-matching", samples=100_000), p, seed=0, budget=Budget(time_s=0.2))
    assert out.solution.extra["samples_drawn"] < 100_000
    assert out.elapsed_s <= 0.2 + overrun_allowance(0.2)  # the time-limit rule, with every core busy


def test_fill_kernel_scans_sequentially_after_the_random_tries():
    # one try only: the partner mostly comes from the scan, which must still respect the rules
    n, target = 10, 3
    adj = np.full((n, target), -1, np.int64)
    deg = np.zeros(n, np.int64)
    out = np.empty((20, 2), np.int64)
    state = np.array([123], dtype=np.uint64)
    count, stuck = _fill(adj, deg, target, np.arange(n, dtype=np.int64), 100, 1, state, out, 0, False)
    e = out[:count]
    assert (e[:, 0] != e[:, 1]).all() and len({tuple(r) for r in e.tolist()}) == count
    if stuck < 0:
        assert count == 15 and (deg == 3).all()
    else:
        assert deg[stuck] < target


def test_parameters_are_checked():
    with pytest.raises(HopbenchError):
        solvers.create("random-matching", samples=0)
    with pytest.raises(HopbenchError):
        solvers.create("random-matching", select="best")


def test_regular_problems_are_supported_and_filled_completely():
    base = parse_spec("ring:128")
    p = ShortcutProblem(base, 6, 128 * 4 // 2, "golf", base_spec="ring:128", regular=True)
    solver = solvers.create("random-matching", samples=4, y=1)  # y is overridden: the cap is the target
    assert solver.skip(p) == (False, "")
    out = execute(solver, p, seed=2)
    assert (degrees(out) == 6).all()
    p.validate(out.solution.shortcuts)
    # the greedy solvers do not promise regularity and decline such problems
    for name in ("edgecut-full", "edgecut-lite", "vrs"):
        assert solvers.create(name).skip(p)[0]


def test_a_sample_whose_evaluation_would_overrun_the_time_limit_is_not_evaluated(monkeypatch):
    import hopbench.solvers.shortcut.random_matching as rm

    estimates = iter([0.0, 1e9])  # the first sample's evaluation fits, the second's would not
    monkeypatch.setattr(rm, "summary_seconds_estimate", lambda g: next(estimates))
    p = problem("ring:64", 4, 10_000)
    out = execute(solvers.create("random-matching", samples=10), p, seed=3, budget=Budget(time_s=600))
    ex = out.solution.extra
    assert ex["stopped"] == "time limit" and ex["samples_drawn"] == 2 and len(ex["sample_diameters"]) == 1
    assert out.solution.evaluation.diameter == ex["sample_diameters"][0]  # the evaluated first sample is kept
    # a first sample that cannot be evaluated in time is returned as it is; the harness evaluates it
    monkeypatch.setattr(rm, "summary_seconds_estimate", lambda g: 1e9)
    out = execute(solvers.create("random-matching", samples=10), p, seed=3, budget=Budget(time_s=600))
    ex = out.solution.extra
    assert ex["stopped"] == "time limit" and ex["samples_drawn"] == 1 and ex["sample_diameters"] == []
    assert out.trace == [] and len(out.solution.shortcuts) == 64 and out.solution.evaluation.diameter < 64
    # without a time limit every sample is evaluated
    out = execute(solvers.create("random-matching", samples=4), p, seed=3)
    assert out.solution.extra["stopped"] == "samples" and len(out.solution.extra["sample_diameters"]) == 4
