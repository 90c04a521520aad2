"""``dor``: plain direction-order routing, the baseline of every routing comparison.

Every pair is routed dimension by dimension the short way round, positive
moves first in the order +X +Y +Z +K, then negative moves -X -Y -Z -K (the
Angara direction order, so a DOR route obeys the direction-bit rule and is a
path of the routing graph).  A size-2 (mesh) dimension has one way only.  When
both ways round an even ring are equally short the ``tie`` parameter decides:
``positive`` (always +), ``negative`` (always -) or ``alternate`` (+ from an
even source coordinate, - from an odd one).

Closed forms (tests/solvers/routing/test_dor.py): on a ring of odd size k every
channel carries (k^2 - 1)/8 routes; on a k-ary n-cube with odd k, k^(n-1)
times that.
"""
from __future__ import annotations

from hopbench.harness import _threading  # noqa: F401  (threading defaults before numba)

# isort: split

import numba as nb
import numpy as np

from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.routing import RoutingProblem, RoutingTable, evaluate_loads
from hopbench.harness.problems.routing.deadlock import loads_and_dependencies
from hopbench.solvers.contract import Param, Solver, register
from hopbench.solvers.contract.budget import Budget, Reporter

TIES = ("positive", "negative", "alternate")
#: pairs routed per compiled call between two budget checks (2^18 pairs: about 20 ms)
CHUNK = 1 << 18


@nb.njit(cache=True)
def _dor_dirs(src, dst, coords, dims, tie, starts, out, lo, hi):
    """Write the DOR route of pairs ``lo:hi`` to ``out`` from ``starts[p]`` on (the module's rule, pair by
    pair: no ``(P, 2n)`` int64 count matrix, 1 GB on 8x8x8x8)."""
    n = dims.shape[0]
    steps = np.empty(n, np.int64)
    plus = np.empty(n, np.bool_)
    for p in range(lo, hi):
        s = src[p]
        d = dst[p]
        for j in range(n):
            k = dims[j]
            fwd = (coords[d, j] - coords[s, j]) % k
            back = (k - fwd) % k
            if k == 2:
                pl = coords[s, j] == 0
            elif tie == 0:
                pl = fwd <= back
            elif tie == 1:
                pl = fwd < back
            else:
                pl = fwd < back or (fwd == back and coords[s, j] % 2 == 0)
            plus[j] = pl
            steps[j] = fwd if pl else back
        t = starts[p]
        for j in range(n):  # positive moves first, in dimension order ...
            if plus[j]:
                for _ in range(steps[j]):
                    out[t] = j
                    t += 1
        for j in range(n):  # ... then the negative ones
            if not plus[j]:
                for _ in range(steps[j]):
                    out[t] = n + j
                    t += 1


def dor_flat(problem: RoutingProblem, rows: np.ndarray | None = None, tie: str = "positive",
             report: Reporter | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """DOR routes of the pairs ``rows`` (default: all) as ``(offsets, int8 directions)``.

    With ``report``, the budget is polled every :data:`CHUNK` pairs; None when it ran out first.
    """
    src, dst = problem.pairs
    lengths = problem.pair_distance  # a DOR route goes the short way round in every dimension
    if rows is not None:
        src, dst, lengths = src[rows], dst[rows], lengths[rows]
    offsets = np.zeros(len(src) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    out = np.empty(int(offsets[-1]), dtype=np.int8)
    net = problem.network
    dims = np.asarray(net.dims, dtype=np.int64)
    for lo in range(0, len(src), CHUNK):
        if report is not None and report.should_stop():
            return None
        _dor_dirs(src, dst, net.coords, dims, TIES.index(tie), offsets, out, lo, min(len(src), lo + CHUNK))
    return offsets, out


def dor_into_rows(problem: RoutingProblem, mat: np.ndarray, lengths: np.ndarray, rows: np.ndarray,
                  tie: str = "positive") -> None:
    """Write the DOR routes of the pairs ``rows`` into those rows of a C-contiguous ``(P, width)`` direction
    matrix (unused cells stay as they are) and their ``lengths``: the fallback of BFS, in place (a boolean-mask
    assignment of a separate matrix took 5.3 s on 8x8x8x8)."""
    rows = np.asarray(rows, dtype=np.int64)
    src, dst = problem.pairs
    net = problem.network
    _dor_dirs(src[rows], dst[rows], net.coords, np.asarray(net.dims, dtype=np.int64), TIES.index(tie),
              rows * mat.shape[1], mat.reshape(-1), 0, len(rows))
    lengths[rows] = problem.pair_distance[rows]


@register
class DOR(Solver):
    """Direction-order routing: the same deterministic rule for every pair, no balancing."""

    name = "dor"
    kinds = ("routing",)
    description = "direction-order routing +X+Y+Z+K-X-Y-Z-K, short way round (the baseline)"
    params = {"tie": Param("positive", "direction on an even ring when both ways are equally short",
                           choices=TIES)}

    def solve(self, problem: RoutingProblem, *, seed: int, budget: Budget, report: Reporter) -> RoutingTable:
        built = dor_flat(problem, tie=self.config["tie"], report=report)
        if built is None:
            # DOR is every routing solver's fallback: there is no cheaper complete table to return
            raise HopbenchError(f"dor could not route the {problem.num_pairs:,} pairs of {problem.name} within the "
                                f"time limit; give a longer --time-limit or fewer nodes")
        table = RoutingTable(problem, *built)
        # the objective from the loads alone: DOR routes are valid by construction, and the full validation
        # (rules, deadlock) is the harness's, after the clock (8x8x8x4: 1.4 s of 2.0 s were validation)
        loads, _ = loads_and_dependencies(problem.pairs[0], table.offsets, table.dirs, problem.network.neighbor)
        report.count(1)
        report(evaluate_loads(problem, loads, table.lengths).objective)
        return table
