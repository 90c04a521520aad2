"""Budgets and the anytime reporter every solver receives.

A solver polls :meth:`Reporter.should_stop` and calls the reporter on every
improvement; the runner keeps the resulting trace (time, evaluations, value).
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Budget:
    """Wall-clock seconds and/or objective evaluations; ``None`` means unlimited."""

    time_s: float | None = None
    evaluations: int | None = None

    def __post_init__(self) -> None:
        if self.time_s is not None and not (self.time_s > 0):
            raise ValueError(f"time budget must be > 0 seconds, got {self.time_s}")
        if self.evaluations is not None and self.evaluations < 1:
            raise ValueError(f"evaluation budget must be >= 1, got {self.evaluations}")


@dataclass(frozen=True)
class TracePoint:
    elapsed_s: float
    evaluations: int
    value: float
    info: dict[str, Any] = field(default_factory=dict)


class Reporter:
    """Collects a solver's anytime trace and tells it when the budget is spent.

    ``report(value, **info)`` records one point; solvers report improvements
    only, so a correct solver's trace never gets worse (the conformance tests
    check that).  ``count(k)`` adds k objective evaluations.
    """

    def __init__(self, budget: Budget | None = None, *, clock: Callable[[], float] = time.perf_counter,
                 on_report: Callable[[TracePoint], None] | None = None, stop: threading.Event | None = None) -> None:
        self.budget = budget or Budget()
        self._stop = stop  # set from outside (Ctrl-C): the budget ends at the solver's next poll
        self._clock = clock
        self._start = clock()
        self._on_report = on_report
        self.evaluations = 0
        self.trace: list[TracePoint] = []

    def elapsed(self) -> float:
        return self._clock() - self._start

    def remaining_time(self) -> float:
        """Seconds left in the time budget (``inf`` without one)."""
        if self.budget.time_s is None:
            return math.inf
        return max(0.0, self.budget.time_s - self.elapsed())

    def count(self, evaluations: int = 1) -> None:
        self.evaluations += int(evaluations)

    def should_stop(self) -> bool:
        if self.interrupted:
            return True
        if self.budget.evaluations is not None and self.evaluations >= self.budget.evaluations:
            return True
        return self.budget.time_s is not None and self.elapsed() >= self.budget.time_s

    @property
    def interrupted(self) -> bool:
        """Whether the run was told to stop before its budget was spent."""
        return self._stop is not None and self._stop.is_set()

    def __call__(self, value: float, **info: Any) -> None:
        point = TracePoint(self.elapsed(), self.evaluations, float(value), dict(info))
        self.trace.append(point)
        if self._on_report is not None:
            self._on_report(point)

    @property
    def best(self) -> float:
        return min((p.value for p in self.trace), default=math.inf)
