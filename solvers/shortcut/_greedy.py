"""Plumbing shared by the constructive shortcut solvers (EdgeCut, VRS, random matchings).

Not a solver module (the leading underscore keeps it out of the registry scan):
it holds what those solvers do identically, so they cannot drift apart — how
the objective of a distance state is read, and how improvements reach the
reporter as a monotone trace.  They run on family problems too (e.g. an
Equality problem): their arbitrary shortcut sets are valid solutions there,
which is what makes them a comparison for the family's structured solvers.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from hopbench.harness.problems.shortcut.problem import objective_value
from hopbench.solvers.contract.budget import Reporter

if TYPE_CHECKING:
    from hopbench.harness.engine.distances import DistanceState


def state_objective(state: DistanceState, objective: str) -> float:
    """The problem's objective for the graph a distance state describes."""
    return objective_value(objective, state.diameter, state.aspl)


class Progress:
    """Forwards a run's objective to the reporter only when it strictly improves.

    The runner's anytime trace must never get worse; a constructive solver's
    objective can stall (e.g. the diameter over several additions), so every
    value goes through :meth:`offer` and only new bests are reported.
    """

    def __init__(self, report: Reporter) -> None:
        self.report = report
        self.best = math.inf

    def offer(self, value: float, **info: Any) -> bool:
        """Report ``value`` if it beats every value reported so far; True when it did."""
        if value < self.best:
            self.best = value
            self.report(value, **info)
            return True
        return False

    def close(self, value: float, **info: Any) -> None:
        """Make sure the trace has a point (a run that never found a finite value reports it once)."""
        if not self.report.trace:
            self.report(value, **info)
            self.best = min(self.best, value)
