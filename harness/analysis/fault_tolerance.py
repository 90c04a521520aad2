"""Koibuchi et al.'s fault-tolerance metric (ISCA 2012, Sect. III-A).

Edges are removed at random in steps of 1% of the edge count until the
diameter has grown by at least 2 or the graph is disconnected; the metric is
the mean, over samples, of the percentage removed at that point.  A step of
p% removes ceil(p/100 * m) edges, so on small graphs every step removes at
least one edge.  Removing
edges never shortens a path, so along one random removal order the failure
condition is monotone in the step and a binary search finds the first failing
step with ~7 distance computations instead of up to 100.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from hopbench.harness import caps
from hopbench.harness.engine.distances import summary
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.graph import Graph


@dataclass(frozen=True)
class FaultTolerance:
    mean_percent: float  #: mean percentage of edges removed when the graph fails
    ci95: float  #: half-width of the 95% confidence interval of the mean
    samples: np.ndarray  #: the per-sample percentages


def _fails(g: Graph, order: np.ndarray, percent: int, limit: float) -> bool:
    removed = math.ceil(g.m * percent / 100.0 - 1e-9)
    keep = np.ones(g.m, dtype=bool)
    keep[order[:removed]] = False
    s = summary(Graph(g.n, g.edges[keep]))
    return (not s.connected) or s.max_finite >= limit


def fault_tolerance(g: Graph, *, samples: int = 30, seed: int = 0, growth: int = 2) -> FaultTolerance:
    """Mean percentage of randomly removed edges at which the graph fails.

    Parameters
    ----------
    g : the graph (must be connected).
    samples : number of random removal orders.
    seed : seed of the removal orders.
    growth : failure threshold on the diameter increase (2 in the paper).
    """
    if samples < 1:
        raise HopbenchError(f"fault tolerance needs at least one sample, got {samples}")
    caps.SAMPLES.check(samples, "the number of fault-tolerance samples")  # before the APSP of the first one
    # each sample is about seven all-pairs searches of the graph: bound the whole analysis, not just the count
    caps.FAULT_WORK.check(samples * g.n * max(g.m, 1),
                          f"the fault-tolerance analysis ({samples} samples x {g.n} vertices x {g.m} edges)")
    base = summary(g)
    if not base.connected:
        raise HopbenchError("fault tolerance is defined for connected graphs only; this graph is disconnected")
    if g.m == 0:
        return FaultTolerance(0.0, 0.0, np.zeros(samples))
    rng = np.random.default_rng(seed)
    limit = base.max_finite + growth
    found = np.empty(samples)
    for i in range(samples):
        order = rng.permutation(g.m)
        lo, hi = 0, 100  # invariant: step lo does not fail, step hi fails (all edges gone)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if _fails(g, order, mid, limit):
                hi = mid
            else:
                lo = mid
        found[i] = hi
    # Student t: a few samples are the usual case, where 1.96 would understate the interval
    ci = float(stats.t.ppf(0.975, samples - 1) * found.std(ddof=1) / math.sqrt(samples)) if samples > 1 else math.inf
    return FaultTolerance(float(found.mean()), float(ci), found)
