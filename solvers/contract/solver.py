"""The one interface every solver implements, and its parameter declarations.

A solver is a class with a stable ``name``, the problem ``kinds`` it solves,
declared ``params`` (with defaults and, for tuning, ranges) and one method::

    solve(problem, *, seed, budget, report) -> Solution

``seed`` makes the run deterministic, ``budget`` is polled through
``report.should_stop()``, and ``report(value, ...)`` is called on every
improvement.  A solver that cannot handle a problem says why in ``skip``.
"""
from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from hopbench.harness.errors import HopbenchError
from hopbench.solvers.contract.budget import Budget, Reporter

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Param:
    """A solver parameter: its default, its type, and its tuning range.

    ``choices`` restricts the values and ``minimum``/``maximum`` bound them
    (hard limits); ``low``/``high``/``log`` give the Optuna search range for
    numeric parameters (a hint, not a limit) and ``also`` lists special values
    searched beside that range (e.g. ``t = 0`` for "exhaustive");
    ``tunable=False`` keeps it out of the search space.  ``kind`` is the value type (taken from the default when not
    given: bool, int, float or str).  ``loop=True`` marks a count of iterations (generations, moves, steps, samples)
    that bounds a run with no time limit: such a run refuses a value above :data:`hopbench.harness.caps.LOOP_COUNT`.
    ``recorded_at_default=False`` leaves the parameter out of a cell's recorded params (which make its key) while it
    holds its default: for a parameter added to a solver with published runs, whose default keeps the solver as it
    was, so that those runs' cells keep their identity (see :meth:`Solver.recorded_config`).
    """

    default: Any
    help: str = ""
    choices: tuple | None = None
    low: float | None = None
    high: float | None = None
    log: bool = False
    tunable: bool = True
    kind: type | None = None
    minimum: float | None = None
    maximum: float | None = None
    also: tuple = ()
    loop: bool = False
    recorded_at_default: bool = True

    @property
    def type(self) -> type:
        return self.kind or type(self.default)

    def coerce(self, name: str, value: Any) -> Any:
        """Convert ``value`` (a string from the command line or a Python value) to this type."""
        t = self.type
        bad = HopbenchError(f"parameter {name} must be {t.__name__}, got {value!r}")
        if t is bool:
            if isinstance(value, bool):
                out = value
            elif isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
                out = value.strip().lower() in _TRUE
            else:
                raise bad
        elif t is int:
            if isinstance(value, bool):
                raise bad
            if isinstance(value, int):
                out = value
            elif isinstance(value, float) and value.is_integer():
                out = int(value)
            elif isinstance(value, str):
                try:
                    out = int(value.strip())
                except ValueError:
                    raise bad from None
            else:
                raise bad
        elif t is float:
            if isinstance(value, bool):
                raise bad
            try:
                out = float(value)
            except (TypeError, ValueError):
                raise bad from None
            if math.isnan(out):
                raise bad
            if math.isinf(out):
                # a row's parameters are JSON, where infinity is recorded as null: the row could not say what ran
                raise HopbenchError(f"parameter {name} must be a finite number, got {value!r}")
        elif t is str:
            if not isinstance(value, str):
                raise bad
            out = value
        else:  # pragma: no cover - solvers declare only the four types above
            out = value
        if self.choices is not None and out not in self.choices:
            raise HopbenchError(f"parameter {name} must be one of {', '.join(map(str, self.choices))}, got {out!r}")
        if self.minimum is not None and out < self.minimum:
            raise HopbenchError(f"parameter {name} must be >= {self.minimum}, got {out!r}")
        if self.maximum is not None and out > self.maximum:
            raise HopbenchError(f"parameter {name} must be <= {self.maximum}, got {out!r}")
        return out


class Solver(ABC):
    """Base class of every solver backend."""

    name: ClassVar[str] = ""
    kinds: ClassVar[tuple[str, ...]] = ("shortcut",)
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}
    #: True when the solver runs until its time limit (an anytime search): ``hopbench run``'s ETA counts
    #: its cells at their limit before any has finished
    time_bound: ClassVar[bool] = False
    #: True when the solver guarantees every vertex ends at the cap on ``regular`` problems
    supports_regular: ClassVar[bool] = False
    #: the objectives a problem kind leaves to solvers that opt in (the problem's ``opt_in_objectives``,
    #: e.g. the shortcut kind's ``channel-load``) which this solver does optimise
    opt_in_objectives: ClassVar[tuple[str, ...]] = ()
    #: named parameter sets that reproduce a published reading of the method, ``{name: (what it is,
    #: {param: value})}``; boards label a row run with exactly those values by the name
    readings: ClassVar[dict[str, tuple[str, dict[str, Any]]]] = {}

    def reading(self) -> str | None:
        """The name of the reading this solver's configuration is (its values and defaults elsewhere)."""
        defaults = {k: p.default for k, p in self.params.items()}
        for name, (_meaning, values) in self.readings.items():
            if self.config == dict(defaults, **values):
                return name
        return None

    def __init__(self, **values: Any) -> None:
        unknown = sorted(set(values) - set(self.params))
        if unknown:
            known = ", ".join(sorted(self.params)) or "none"
            raise HopbenchError(f"solver {self.name} has no parameter {unknown[0]!r}; its parameters: {known}")
        self.config: dict[str, Any] = {k: p.default for k, p in self.params.items()}
        for key, value in values.items():
            self.config[key] = self.params[key].coerce(key, value)

    def recorded_config(self) -> dict[str, Any]:
        """The configuration a cell records and is keyed by: every parameter, except one declared
        ``recorded_at_default=False`` that holds its default."""
        return {k: v for k, v in self.config.items()
                if self.params[k].recorded_at_default or v != self.params[k].default}

    @classmethod
    def search_space(cls) -> dict[str, Param]:
        """The parameters Optuna may tune (those with a range or choices)."""
        return {k: p for k, p in cls.params.items()
                if p.tunable and (p.choices is not None or (p.low is not None and p.high is not None))}

    def skip(self, problem: Any) -> tuple[bool, str]:
        """``(True, reason)`` when this solver cannot handle ``problem``."""
        kind = getattr(problem, "kind", None)
        if kind not in self.kinds:
            return True, f"{self.name} solves {'/'.join(self.kinds)} problems, not {kind}"
        if getattr(problem, "regular", False) and not self.supports_regular:
            return True, f"{self.name} does not guarantee that every vertex reaches the cap (regular problem)"
        objective = getattr(problem, "objective", None)
        opt_in = getattr(problem, "opt_in_objectives", {})
        if objective in opt_in and objective not in self.opt_in_objectives:
            return True, f"{self.name} does not optimise the {objective} objective; {opt_in[objective]} do"
        return False, ""

    def warm_up(self) -> None:
        """Compile (or load from numba's disk cache) the kernels that the warm-up problems' short runs
        cannot reach, e.g. those of a main loop the warm-up budget ends before; nothing by default."""

    @abstractmethod
    def solve(self, problem: Any, *, seed: int, budget: Budget, report: Reporter) -> Any:
        """Return a solution of ``problem``; deterministic for a given ``seed``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config})"
