"""Diameter and ASPL of one graph, by the cheapest exact method for its size.

Callers that only need :class:`DistanceSummary` import :func:`summary` from
here, not from :mod:`hopbench.harness.engine.distances`: importing numba and loading
the engine's cached kernels costs about 0.8 s per process, while the pure-numpy
path of :mod:`hopbench.harness.engine.small` measures a graph under 1,000 vertices in
milliseconds (a 999-vertex ring, the worst case, in about 40 ms).  Larger
graphs go to the numba engine, which is 3-4x faster per call once loaded and
keeps memory bounded by working on blocks of sources.
"""
from __future__ import annotations

from hopbench.harness.engine.small import DistanceSummary, small_summary
from hopbench.harness.graphs.graph import Graph

__all__ = ["SMALL_N", "DistanceSummary", "seconds_estimate", "summary"]

#: graphs with fewer vertices use the numpy path
SMALL_N = 1000


def summary(g: Graph) -> DistanceSummary:
    """Diameter, ASPL and the exact sums behind them (the same numbers from either path)."""
    if g.n < SMALL_N:
        return small_summary(g)
    from hopbench.harness.engine.distances import summary as engine_summary

    return engine_summary(g)


def seconds_estimate(g: Graph) -> float:
    """A generous estimate of :func:`summary`'s seconds on ``g`` (0 for the numpy path, always fast)."""
    if g.n < SMALL_N:
        return 0.0
    from hopbench.harness.engine.distances import summary_seconds_estimate

    return summary_seconds_estimate(g)
