"""The statistics of boards and plots: confidence intervals, gaps, ranks, win rates, anytime quantiles.

Pure functions of numbers (and, for :func:`win_rates`, of board rows); nothing
here reads a store or knows a problem kind.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterable

import numpy as np

from hopbench.harness.report.labels import display_label

if TYPE_CHECKING:
    import pandas as pd

#: means closer than this share a rank (sums of the same floats in another order differ in the last bits)
RANK_DECIMALS = 10


def ci95_halfwidth(values: np.ndarray) -> float | None:
    """Half-width of the 95% Student-t confidence interval of the mean; None for fewer than 2 values
    or when a value is infinite."""
    from scipy import stats

    values = np.asarray(values, dtype=float)
    n = len(values)
    if n < 2:
        return None
    if not np.isfinite(values).all():
        return None  # an interval around an infinite mean says nothing
    s = float(np.std(values, ddof=1))
    return float(stats.t.ppf(0.975, n - 1) * s / math.sqrt(n))


def relative_gap(value: float | None, reference: float | None, maximise: bool = False) -> float | None:
    """How far ``value`` falls short of ``reference``, as a fraction of it: ``(value - reference) / reference``
    for a minimised objective, ``(reference - value) / reference`` for a maximised one (a throughput), so
    a positive gap is always worse.  None when either is missing or the reference is 0."""
    if value is None or reference is None or reference == 0 or not math.isfinite(reference):
        return None
    if not math.isfinite(value):
        return math.inf
    return (reference - value) / reference if maximise else (value - reference) / reference


def rank_values(means: list[float | None], maximise: bool = False) -> list[int | None]:
    """Competition ranks (1, 1, 3) of the means, ascending (descending when ``maximise``); None stays
    unranked.  An infinite mean (a disconnected graph's ASPL) ranks last."""
    sign = -1.0 if maximise else 1.0
    keys = [None if m is None else (sign * round(m, RANK_DECIMALS) if math.isfinite(m) else math.inf) for m in means]
    ranked = [k for k in keys if k is not None]
    return [None if k is None else 1 + sum(1 for o in ranked if o < k) for k in keys]


def win_rates(rows: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Share of instances where row label A beats B (a strictly better mean objective: lower, or higher for
    a maximised one such as a throughput).

    Only instances where both have ok runs count; ties count for neither, so
    ``W[A, B] + W[B, A] <= 1``.  Returns ``(labels, W, counts)`` with
    ``counts[A, B]`` the number of instances compared; W is NaN where it is 0.
    """
    ranked = rows[rows["runs"] > 0]
    labels = sorted({display_label(s, p) for s, p in zip(ranked["solver"], ranked["params"])})
    index = {lab: k for k, lab in enumerate(labels)}
    k = len(labels)
    wins = np.zeros((k, k))
    counts = np.zeros((k, k), dtype=int)
    from hopbench.harness.problems.registry import is_maximised

    for _, g in ranked.groupby("instance", sort=False):
        sign = -1.0 if "objective_name" in g and is_maximised(str(g["objective_name"].iloc[0])) else 1.0
        means = {display_label(s, p): sign * round(float(m), RANK_DECIMALS) if math.isfinite(m) else math.inf
                 for s, p, m in zip(g["solver"], g["params"], g["mean"])}
        for a, ma in means.items():
            for b, mb in means.items():
                if a == b:
                    continue
                counts[index[a], index[b]] += 1
                wins[index[a], index[b]] += ma < mb
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(counts > 0, wins / np.maximum(counts, 1), np.nan)
    return labels, share, counts


def anytime_quantiles(points: list[tuple[np.ndarray, np.ndarray, float]], grid: np.ndarray) -> np.ndarray:
    """Quartiles over seeds of the best-so-far value on a time grid.

    ``points`` holds one ``(times, values, end)`` per run: its trace and the
    time it ended.  Before its first report a run has no solution and counts
    as ``inf``; after ``end`` it keeps its last value.  Returns a ``(3, len(grid))``
    array (25%, 50%, 75%), ``inf`` where fewer than that share of runs had reported.
    """
    curves = np.full((len(points), len(grid)), np.inf)
    for r, (times, values, _end) in enumerate(points):
        if len(times) == 0:
            continue
        best = np.minimum.accumulate(np.where(np.isfinite(values), values, np.inf))
        pos = np.searchsorted(times, grid, side="right") - 1
        curves[r] = np.where(pos >= 0, best[np.maximum(pos, 0)], np.inf)
    return quantiles_with_inf(curves, (0.25, 0.5, 0.75))


def quantiles_with_inf(values: np.ndarray, qs: Iterable[float]) -> np.ndarray:
    """Linear-interpolation quantiles along axis 0 where ``inf`` means "no value yet".

    numpy's interpolation between a finite value and ``inf`` yields NaN; here
    it yields ``inf`` unless the quantile falls exactly on a finite value.
    """
    qs = tuple(qs)
    values = np.sort(np.asarray(values, dtype=float), axis=0)
    n = values.shape[0]
    out = np.full((len(qs),) + values.shape[1:], np.inf)
    if n == 0:
        return out
    for k, q in enumerate(qs):
        pos = (n - 1) * q
        lo, hi = int(math.floor(pos)), int(math.ceil(pos))
        frac = pos - lo
        a, b = values[lo], values[hi]
        with np.errstate(invalid="ignore"):
            mixed = a + (b - a) * frac
        exact = a if frac == 0 else np.where(np.isfinite(b), mixed, np.inf)
        out[k] = np.where(np.isfinite(a), exact, np.inf)
    return out
