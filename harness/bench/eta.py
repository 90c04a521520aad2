"""How long the cells of a run have left: an estimate per solver and parameter set.

One average over every finished cell is wrong whenever a run mixes solvers: ``--solver
annealing,edgecut-full --time-limit 3`` has annealing cells that run their 3 s and EdgeCut cells
that stop on their own in a fraction of it.  So each group of cells (solver and parameters) gets
its own estimate of one cell's seconds:

* a **time-bound** group — a solver that runs until its budget (declared by the solver's
  ``time_bound``, or measured: its finished cells ran at least 90 % of their limit) — takes the
  cells' time limit;
* any other group takes the mean run time of its finished cells (warm-ups excluded);
* a group with no finished cell yet, and not declared time-bound, borrows the median of the
  other measured groups that are not time-bound (0 if there is none: the ETA then grows once
  it is measured).

The seconds left are the sum over the remaining cells, shared by the slots that run at once.
The runner starts the cells :func:`interleaved` (round-robin over the groups, each group in its own
order), so that every group is measured within the first cells instead of only once the groups
before it are done.
"""
from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Iterable
from typing import Any

#: a group whose cells ran at least this share of their time limit runs until its budget
TIME_BOUND_SHARE = 0.9


def group_of(cell: dict[str, Any]) -> str:
    """The group a cell's time is estimated with: its solver and parameters."""
    return json.dumps([cell["solver"], cell.get("params") or {}], sort_keys=True, default=str)


class CellEstimator:
    """The seconds the remaining cells of a run will take (:meth:`eta`), learnt from the finished ones.

    ``time_bound(solver)`` says whether a solver declares that it runs until its budget.
    """

    def __init__(self, cells: Iterable[dict[str, Any]], slots: int,
                 time_bound: Callable[[str], bool] = lambda solver: False) -> None:
        self.slots = max(1, slots)
        self.remaining: dict[str, int] = {}
        self.limit: dict[str, float] = {}
        self.declared: dict[str, bool] = {}
        self.measured: dict[str, list[float]] = {}
        for cell in cells:
            g = group_of(cell)
            self.remaining[g] = self.remaining.get(g, 0) + 1
            self.limit[g] = max(self.limit.get(g, 0.0), float(cell.get("time_limit") or 0.0))
            if g not in self.declared:
                self.declared[g] = bool(time_bound(cell["solver"]))

    def done(self, cell: dict[str, Any], run_s: float | None) -> None:
        """A cell finished; ``run_s`` is its own run time (None when it never started: not measured)."""
        g = group_of(cell)
        if self.remaining.get(g, 0) > 0:
            self.remaining[g] -= 1
        if run_s is not None:
            self.measured.setdefault(g, []).append(float(run_s))

    def time_bound(self, g: str) -> bool:
        if self.declared.get(g):
            return True
        runs = self.measured.get(g)
        return bool(runs) and self.limit.get(g, 0) > 0 and \
            statistics.fmean(runs) >= TIME_BOUND_SHARE * self.limit[g]

    def per_cell(self, g: str) -> float:
        """The estimated seconds of one more cell of group ``g``."""
        if self.time_bound(g):
            return self.limit[g]
        if self.measured.get(g):
            return statistics.fmean(self.measured[g])
        others = [statistics.fmean(runs) for h, runs in self.measured.items() if runs and not self.time_bound(h)]
        return statistics.median(others) if others else 0.0

    def eta(self) -> float | None:
        """Seconds left; None before any cell finished, unless every remaining cell is time-bound."""
        left = sum(self.remaining.values())
        if left == 0:
            return 0.0
        if not self.measured and not all(self.declared[g] for g, n in self.remaining.items() if n):
            return None
        total = sum(n * self.per_cell(g) for g, n in self.remaining.items() if n)
        return total / min(self.slots, left)


def interleaved(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``cells`` round-robin over their groups (:func:`group_of`), each group's cells in their own order."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for cell in cells:
        groups.setdefault(group_of(cell), []).append(cell)
    out: list[dict[str, Any]] = []
    queues = list(groups.values())
    for k in range(max((len(q) for q in queues), default=0)):
        out.extend(q[k] for q in queues if k < len(q))
    return out
