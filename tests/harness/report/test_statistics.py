"""The statistics helpers (:mod:`hopbench.harness.report.statistics`): confidence intervals, ranks, gaps,
quantiles with "no value yet", anytime quartiles and win rates."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from hopbench.harness.report.statistics import (
    anytime_quantiles,
    ci95_halfwidth,
    quantiles_with_inf,
    rank_values,
    relative_gap,
    win_rates,
)


def test_ci95_matches_scipy_interval():
    x = np.array([3.0, 3.5, 2.75, 3.25])
    lo, hi = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    assert ci95_halfwidth(x) == pytest.approx((hi - lo) / 2)
    assert ci95_halfwidth(np.array([1.0])) is None
    assert ci95_halfwidth(np.array([2.0, 2.0])) == 0.0
    assert ci95_halfwidth(np.array([2.0, np.inf])) is None


def test_ranks_share_ties_and_skip():
    assert rank_values([2.0, 1.0, 2.0, None, 3.0]) == [2, 1, 2, None, 4]
    assert rank_values([0.1 + 0.2, 0.3, math.inf]) == [1, 1, 3]  # equal up to rounding noise


def test_a_maximised_objective_ranks_the_largest_first_and_infinity_last():
    assert rank_values([0.3, 0.5, 0.3, None, 0.1], maximise=True) == [2, 1, 2, None, 4]
    assert rank_values([0.2, math.inf], maximise=True) == [1, 2]


def test_relative_gap():
    assert relative_gap(3.0, 2.0) == 0.5
    assert relative_gap(None, 2.0) is None and relative_gap(3.0, None) is None and relative_gap(3.0, 0) is None
    assert relative_gap(math.inf, 2.0) == math.inf
    # a throughput: short of the reference is a positive gap, past it a negative one
    assert relative_gap(0.3, 0.4, maximise=True) == pytest.approx(0.25)
    assert relative_gap(0.5, 0.4, maximise=True) == pytest.approx(-0.25)


def test_quantiles_treat_inf_as_not_yet_reported():
    v = np.array([[1.0, np.inf], [3.0, np.inf], [np.inf, 2.0]])
    q = quantiles_with_inf(v, (0.0, 0.5, 1.0))
    assert q[:, 0].tolist() == [1.0, 3.0, np.inf]
    assert q[:, 1].tolist() == [2.0, np.inf, np.inf]
    finite = np.array([[1.0], [2.0], [4.0], [8.0]])
    assert quantiles_with_inf(finite, (0.25, 0.5, 0.75))[:, 0] == pytest.approx(
        np.quantile(finite[:, 0], [0.25, 0.5, 0.75]))


def test_anytime_quantiles_follow_best_so_far():
    grid = np.array([0.5, 1.0, 1.5, 2.5, 10.0])
    runs = [(np.array([1.0, 2.0]), np.array([5.0, 3.0]), 3.0),
            (np.array([0.2, 1.2]), np.array([4.0, 6.0]), 3.0),   # a worse report never raises best-so-far
            (np.array([]), np.array([]), 3.0)]                   # never reported: inf throughout
    q = anytime_quantiles(runs, grid)
    assert q[1].tolist() == [np.inf, 5.0, 5.0, 4.0, 4.0]  # median of (run 1, run 2, inf)
    assert q[0].tolist() == [np.inf, 4.5, 4.5, 3.5, 3.5]  # between 4 and "not yet": not yet


def test_win_rates():
    rows = pd.DataFrame({
        "instance": ["a", "a", "b", "b", "c", "c", "c"],
        "solver": ["x", "y", "x", "y", "x", "y", "z"],
        "params": ["default"] * 7,
        "runs": [1, 1, 1, 1, 1, 1, 0],
        "mean": [1.0, 2.0, 3.0, 3.0, 5.0, 4.0, np.nan],
    })
    labels, share, counts = win_rates(rows)
    assert labels == ["x", "y"]
    assert counts.tolist() == [[0, 3], [3, 0]]
    assert share[0, 1] == pytest.approx(1 / 3) and share[1, 0] == pytest.approx(1 / 3)  # b is a tie
