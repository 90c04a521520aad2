"""``dor``: plain direction-order routing, the baseline of every routing comparison.

Every pair is routed dimension by dimension the short way round, positive
moves first in the order +X +Y +Z +K, then negative moves -X -Y -Z -K (the
Angara direction order, so a DOR route obeys the direction-bit rule and is a
path of the routing graph).  A size-2 (mesh) dimension has one way only.  When
both ways round an even ring are equally short the ``tie`` parameter decides:
``positive`` (always +), ``negative`` (always -) or ``alternate`` (+ from an
even source coordinate, - from an odd one).

Closed forms (tests/solvers/test_dor.py): on a ring of odd size k every
channel carries (k^2 - 1)/8 routes; on a k-ary n-cube with odd k, k^(n-1)
times that.
"""
from __future__ import annotations

import numpy as np

from harness.problems.routing import RoutingProblem, RoutingTable
from solvers.contract import Param, Solver, register
from solvers.contract.budget import Budget, Reporter

TIES = ("positive", "negative", "alternate")



def dor_counts(problem: RoutingProblem, src: np.ndarray, dst: np.ndarray, tie: str = "positive") -> np.ndarray:
    """``(P, 2n)`` number of steps per direction of the DOR route of each (src, dst) pair."""
    net = problem.network
    n = net.n
    cs, cd = net.coords[src], net.coords[dst]
    counts = np.zeros((len(src), 2 * n), dtype=np.int64)
    for j, k in enumerate(net.dims):
        fwd = (cd[:, j] - cs[:, j]) % k
        back = (k - fwd) % k
        if tie == "positive":
            plus = fwd <= back
        elif tie == "negative":
            plus = fwd < back
        else:
            plus = (fwd < back) | ((fwd == back) & (cs[:, j] % 2 == 0))
        if k == 2:
            plus = cs[:, j] == 0  # mesh: the only link goes + from 0 and - from 1
        counts[:, j] = np.where(plus, fwd, 0)
        counts[:, n + j] = np.where(plus, 0, back)
    return counts


def dor_routes(problem: RoutingProblem, rows: np.ndarray | None = None, tie: str = "positive"
               ) -> tuple[np.ndarray, np.ndarray]:
    """DOR routes of the pairs ``rows`` (default: all) as a direction matrix and lengths."""
    src, dst = problem.pairs
    if rows is not None:
        src, dst = src[rows], dst[rows]
    counts = dor_counts(problem, src, dst, tie)
    lengths = counts.sum(axis=1)
    width = int(lengths.max()) if len(lengths) else 0
    flat = np.repeat(np.tile(np.arange(counts.shape[1]), len(src)), counts.ravel())
    matrix = np.full((len(src), width), -1, dtype=np.int64)
    mask = np.arange(width)[None, :] < lengths[:, None]
    matrix[mask] = flat
    return matrix, lengths


@register
class DOR(Solver):
    """Direction-order routing: the same deterministic rule for every pair, no balancing."""

    name = "dor"
    kinds = ("routing",)
    description = "direction-order routing +X+Y+Z+K-X-Y-Z-K, short way round (the baseline)"
    params = {"tie": Param("positive", "direction on an even ring when both ways are equally short",
                           choices=TIES)}


    def solve(self, problem: RoutingProblem, *, seed: int, budget: Budget, report: Reporter) -> RoutingTable:
        matrix, lengths = dor_routes(problem, tie=self.config["tie"])
        table = RoutingTable.from_matrix(problem, matrix, lengths)
        report.count(1)
        report(table.evaluate().objective)
        return table
