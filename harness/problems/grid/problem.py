"""The grid-graph problem of Graph Golf (2019) and its solutions.

:class:`GridProblem` (width W, height H, ``degree`` d, cable ``length`` r): the vertices are the W x H
cells, vertex ``v = x * H + y`` at column x and row y (the numbering of ODP's grid programs, so their
edge lists read the same); a solution is a simple graph on them in which every edge joins two cells at
Manhattan distance at most r and every degree is at most d.  It scores, like every Graph Golf category,
diameter first, then ASPL: the objective ``grid-golf`` is ``diameter + ASPL / (diameter + 1)`` (the
shortcut kind's ``golf`` formula; ASPL <= diameter keeps the order lexicographic).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from hopbench.harness import caps
from hopbench.harness.errors import HopbenchError, InvalidSolution
from hopbench.harness.problems.kind import SolverOutput

GRID_FORMAT = "hopbench.grid/1"
OBJECTIVES = ("grid-golf",)
#: the longest cable length worth stating: W + H - 2 joins any two cells of the largest grid allowed
MAX_LENGTH = 100_000
#: most ports per vertex (Graph Golf's grid categories use 4 to 8)
MAX_DEGREE = 1_000


def golf_value(diameter: float, aspl: float) -> float:
    """Diameter first, then ASPL, as one number (inf for a disconnected graph)."""
    if math.isinf(diameter) or math.isinf(aspl):
        return math.inf
    return float(diameter) + float(aspl) / (float(diameter) + 1.0)


def _integer(name: str, value: Any, low: int, high: int, hint: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise HopbenchError(f"{name} must be an integer, got {value!r:.40}")
    if not low <= int(value) <= high:
        raise HopbenchError(f"{name} = {int(value)} is out of range {low}..{high:,}; {hint}")
    return int(value)


@dataclass(frozen=True)
class GridProblem:
    """Graph Golf's grid graph: W x H cells, degree <= ``degree``, edges no longer than ``length`` (Manhattan).

    >>> GridProblem(5, 5, 4, 2).lower_bounds()[:2]
    (4, 2.2133333333333334)
    """

    width: int
    height: int
    degree: int
    length: int
    objective: str = "grid-golf"

    kind = "grid"

    def __post_init__(self) -> None:
        _integer("width", self.width, 1, caps.VERTICES.limit(), "a grid has at least one column")
        _integer("height", self.height, 1, caps.VERTICES.limit(), "a grid has at least one row")
        caps.VERTICES.check(int(self.width) * int(self.height), "the grid's cell count (width x height)")
        if self.width * self.height < 2:
            raise HopbenchError("a grid graph needs at least two cells; use width x height >= 2")
        _integer("degree", self.degree, 1, MAX_DEGREE, "the degree is the ports per vertex, e.g. 4")
        _integer("length", self.length, 1, MAX_LENGTH, "the length is the longest edge in grid steps, e.g. 2")
        if self.objective not in OBJECTIVES:
            raise HopbenchError(f"objective {self.objective!r} is not a grid objective; use {', '.join(OBJECTIVES)}")

    # ------------------------------------------------------------------ geometry

    @property
    def n(self) -> int:
        return int(self.width) * int(self.height)

    @property
    def spec(self) -> str:
        """``WxH/dD/rR``, the instance id's problem part (e.g. ``10x10/d6/r3``)."""
        return f"{self.width}x{self.height}/d{self.degree}/r{self.length}"

    def coordinates(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(x, y) of vertex ids."""
        v = np.asarray(v, np.int64)
        return v // self.height, v % self.height

    def vertex(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.asarray(x, np.int64) * self.height + np.asarray(y, np.int64)

    def edge_lengths(self, edges: np.ndarray) -> np.ndarray:
        """The Manhattan length of each edge ``[u, v]``."""
        e = np.asarray(edges, np.int64).reshape(-1, 2)
        xu, yu = self.coordinates(e[:, 0])
        xv, yv = self.coordinates(e[:, 1])
        return np.abs(xu - xv) + np.abs(yu - yv)

    # ------------------------------------------------------------------ bounds

    @cached_property
    def _bounds(self) -> tuple[int, float, int]:
        from hopbench.harness.problems.grid.bounds import grid_lower_bounds

        return grid_lower_bounds(self.width, self.height, self.degree, self.length)

    def lower_bounds(self) -> tuple[float, float]:
        """(diameter, ASPL) no solution beats: the 2019-07-29 grid bound (:mod:`hopbench.harness.problems.grid.bounds`)."""
        d, a, _ = self._bounds
        return (float(d) if math.isfinite(a) else math.inf), a

    def objective_lower_bound(self) -> float:
        return golf_value(*self.lower_bounds())

    def describe(self) -> dict[str, Any]:
        return {"width": int(self.width), "height": int(self.height), "degree": int(self.degree),
                "length": int(self.length), "objective": self.objective}

    # ------------------------------------------------------------------ solutions

    def validate(self, edges: np.ndarray | list) -> np.ndarray:
        """Check an edge list; return it as a ``(m, 2)`` int64 array.

        Raises :class:`InvalidSolution` naming the first violation: a vertex out of range, a self-loop,
        an edge longer than the cable length, a repeated edge, a vertex over the degree.
        """
        e = np.asarray(edges, dtype=np.int64)
        if e.size == 0:
            e = np.empty((0, 2), np.int64)
        if e.ndim != 2 or e.shape[1] != 2:
            raise InvalidSolution(f"edges must be a list of [u, v] pairs, got an array of shape {e.shape}")
        n = self.n
        bad = ((e < 0) | (e >= n)).any(axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InvalidSolution(f"edge #{i} ({e[i, 0]}, {e[i, 1]}) has a vertex out of range 0..{n - 1}")
        loops = e[:, 0] == e[:, 1]
        if loops.any():
            i = int(np.flatnonzero(loops)[0])
            raise InvalidSolution(f"edge #{i} ({e[i, 0]}, {e[i, 1]}) is a self-loop")
        lengths = self.edge_lengths(e)
        long = lengths > self.length
        if long.any():
            i = int(np.flatnonzero(long)[0])
            (xu, yu), (xv, yv) = (tuple(int(c) for c in self.coordinates(e[i, k])) for k in (0, 1))
            raise InvalidSolution(f"edge #{i} ({xu},{yu})-({xv},{yv}) has length {int(lengths[i])}, above the "
                                  f"cable length {self.length}")
        keys = np.minimum(e[:, 0], e[:, 1]) * n + np.maximum(e[:, 0], e[:, 1])
        _, first = np.unique(keys, return_index=True)
        if first.size < len(e):
            repeated = np.ones(len(e), bool)
            repeated[first] = False
            i = int(np.flatnonzero(repeated)[0])
            j = int(np.flatnonzero(keys == keys[i])[0])
            raise InvalidSolution(f"edge #{i} ({e[i, 0]}, {e[i, 1]}) repeats edge #{j}")
        deg = np.bincount(e.ravel(), minlength=n)
        over = np.flatnonzero(deg > self.degree)
        if over.size:
            v = int(over[0])
            x, y = (int(c) for c in self.coordinates(v))
            raise InvalidSolution(f"vertex {v} ({x},{y}) has degree {int(deg[v])}, above the degree {self.degree}")
        return e

    def evaluate(self, edges: np.ndarray | list) -> "GridEvaluation":
        """Validate, then measure the graph exactly (hopbench's distance engine)."""
        from hopbench.harness.engine.summary import summary
        from hopbench.harness.graphs.graph import Graph

        e = self.validate(edges)
        s = summary(Graph(self.n, e, dedupe=False))
        return GridEvaluation.of(self, s.diameter, s.aspl, int(s.total))


@dataclass(frozen=True)
class GridEvaluation:
    """The exact metrics of one grid graph, with the grid bound beside them."""

    diameter: float
    aspl: float
    objective: float
    total_distance: int  #: sum of distances over unordered pairs (0 when disconnected)
    lower_bound_diameter: float
    lower_bound_aspl: float

    @classmethod
    def of(cls, problem: GridProblem, diameter: float, aspl: float, total: int) -> "GridEvaluation":
        lb_d, lb_a = problem.lower_bounds()
        return cls(float(diameter), float(aspl), golf_value(diameter, aspl), int(total), lb_d, lb_a)

    def metrics(self) -> dict[str, float]:
        return {"diameter": self.diameter, "aspl": self.aspl, "objective": self.objective}


@dataclass
class GridSolution(SolverOutput):
    """A solver's grid graph: its edge list (vertex ``x * height + y``)."""

    problem: GridProblem
    edges: np.ndarray
    evaluation: GridEvaluation | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        self.edges = np.asarray(self.edges, dtype=np.int64).reshape(-1, 2)

    def evaluate(self) -> GridEvaluation:
        self.evaluation = self.problem.evaluate(self.edges)
        return self.evaluation

    def to_dict(self) -> dict[str, Any]:
        """The self-contained result document (``hopbench.grid/1``) that ``hopbench verify`` checks."""
        return solution_to_dict(self)


def solution_to_dict(solution: GridSolution) -> dict[str, Any]:
    """The JSON document of a grid solution (evaluating it first if needed); the format is described in
    :mod:`hopbench.harness.problems.grid.document`, which reads it back."""
    from hopbench.harness import __version__

    ev = solution.evaluation or solution.evaluate()
    doc: dict[str, Any] = {
        "format": GRID_FORMAT,
        "problem": solution.problem.describe(),
        "solver": {"name": solution.solver, "params": dict(solution.params)},
        "seed": solution.seed,
        "edges": np.asarray(solution.edges, np.int64).tolist(),
        "metrics": {k: (float(v) if math.isfinite(v) else None) for k, v in ev.metrics().items()},
        "elapsed_s": round(float(solution.elapsed_s), 6),
        "hopbench": __version__,
    }
    if solution.extra:
        doc["extra"] = solution.extra
    return doc
