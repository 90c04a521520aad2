"""The common problem definition: a base graph, a degree cap, a shortcut budget.

A :class:`ShortcutProblem` keeps its base graph as is; a :class:`Solution`
only adds shortcut edges.  Objectives are always minimised:

``aspl``      average shortest path length over unordered pairs
``diameter``  largest hop distance
``golf``      diameter first, then ASPL (Graph Golf's order), as the scalar
              ``diameter + aspl / (diameter + 1)``: the integer part is the
              diameter and, because ASPL <= diameter, the order of the scalar
              is exactly the lexicographic order of (diameter, ASPL)
``ad``        ASPL x diameter (the Equality GA's fitness)

A disconnected graph scores ``inf`` on every objective.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from hopbench.harness import caps
from hopbench.harness.documents import finite_or_none
from hopbench.harness.engine.summary import DistanceSummary, summary
from hopbench.harness.errors import HopbenchError, InvalidSolution
from hopbench.harness.graphs.bounds import lower_bounds
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.problems.kind import SolverOutput
from hopbench.harness.problems.shortcut.names import FAMILIES, OBJECTIVES, OPT_IN_OBJECTIVES, SOLUTION_FORMAT


def objective_value(objective: str, diameter: float, aspl: float) -> float:
    """The scalar a solver minimises, from a graph's diameter and ASPL (not ``channel-load``, which needs the
    graph: :func:`graph_objective_value`)."""
    if objective in OPT_IN_OBJECTIVES:
        raise HopbenchError(f"the {objective} objective is not a function of the diameter and the ASPL; "
                            f"measure the graph (graph_objective_value)")
    if math.isinf(diameter) or math.isinf(aspl):
        return math.inf
    if objective == "aspl":
        return float(aspl)
    if objective == "diameter":
        return float(diameter)
    if objective == "golf":
        return float(diameter) + float(aspl) / (float(diameter) + 1.0)
    if objective == "ad":
        return float(aspl) * float(diameter)
    raise HopbenchError(f"unknown objective {objective!r}; use one of {', '.join(OBJECTIVES)}")


def graph_objective_value(objective: str, graph: Graph, diameter: float, aspl: float) -> float:
    """The objective of ``graph`` (whose diameter and ASPL are given): any objective, ``channel-load`` too."""
    if objective == "channel-load":
        from hopbench.harness.engine.channel_load import max_channel_load

        return max_channel_load(graph)
    return objective_value(objective, diameter, aspl)


def channel_load_lower_bound(n: int, aspl_bound: float, links: int) -> float:
    """No graph of ``n`` vertices, ASPL >= ``aspl_bound`` and at most ``links`` links has a smaller busiest
    channel under uniform traffic with minimal routing: the channels carry n x ASPL flits/cycle in all
    (every switch injecting 1, each flit crossing ASPL channels on average), over at most 2 x links channels."""
    if n < 2:
        return 0.0
    if links <= 0 or math.isinf(aspl_bound):
        return math.inf
    return n * float(aspl_bound) / (2.0 * links)


@dataclass(frozen=True)
class ShortcutProblem:
    """Add at most ``budget`` shortcuts to ``base`` keeping every degree <= ``degree_cap``.

    ``base_spec`` is the spec string the base came from (kept so solutions can
    name their problem); ``family`` optionally restricts the solution shape
    (``equality``: Equality link sets on an even ring).  ``regular`` asks for
    every vertex to end exactly at the cap (Koibuchi's DLN-2-y topologies);
    the budget must then be half the free ports.

    ``base`` may be a :class:`Graph` or a topology spec string (``"torus:6x6"``), which is
    parsed here and kept as ``base_spec``.
    """

    base: Graph | str
    degree_cap: int
    budget: int
    objective: str = "aspl"
    family: str | None = None
    base_spec: str | None = None
    regular: bool = False

    kind = "shortcut"
    #: objectives only some solvers take, with the solvers that do (see :class:`hopbench.solvers.contract.solver.Solver`)
    opt_in_objectives: ClassVar[dict[str, str]] = OPT_IN_OBJECTIVES

    def __post_init__(self) -> None:
        self._normalise_base()
        for name in ("degree_cap", "budget"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise HopbenchError(f"{name.replace('_', ' ')} must be an integer, got {value!r}")
        if self.budget < 0:
            raise HopbenchError(f"shortcut budget must be >= 0, got {self.budget}")
        base_max = self.base.max_degree
        if self.degree_cap < base_max:
            v = int(np.argmax(self.base.degree))
            raise HopbenchError(
                f"degree cap {self.degree_cap} is below the base graph's degree {base_max} "
                f"(vertex {v}); use a cap of at least {base_max}"
            )
        if self.objective not in OBJECTIVES:
            raise HopbenchError(f"unknown objective {self.objective!r}; use one of {', '.join(OBJECTIVES)}")
        if self.objective == "channel-load":  # measured from scratch, O(n m): refused past its cap up front
            caps.check_channel_load_work(self.n, min(self.base.m + int(self.budget), self.n * int(self.degree_cap) // 2))
        if self.family is not None and self.family not in FAMILIES:
            raise HopbenchError(f"unknown problem family {self.family!r}; use one of {', '.join(FAMILIES)} or none")
        if self.regular:
            ports = int(self.free_ports.sum())
            if ports != 2 * self.budget:
                raise HopbenchError(
                    f"a regular problem needs budget = (free ports)/2 = {ports / 2:g} so that every vertex "
                    f"reaches the cap {self.degree_cap}; got budget {self.budget}"
                )
        if self.family == "equality":
            # the family's own module knows its shape rules (even ring, cap K, budget N(K-2)/2)
            from hopbench.harness.problems.shortcut.equality import family

            family.check_problem(self)

    def _normalise_base(self) -> None:
        """A spec string becomes its graph (remembered as ``base_spec``); anything else but a Graph is refused
        here, in one line, rather than as an AttributeError deep in the checks below."""
        base = self.base
        if isinstance(base, str):
            from hopbench.harness.graphs.topologies import parse_spec

            if self.base_spec is not None and self.base_spec != base:
                raise HopbenchError(f"base {base!r} and base_spec {self.base_spec!r} disagree; give the spec once, "
                                    f"as base")
            object.__setattr__(self, "base", parse_spec(base))
            object.__setattr__(self, "base_spec", base)
        elif not isinstance(base, Graph):
            raise HopbenchError(f"the base of a shortcut problem must be a topology spec such as 'torus:6x6' or a "
                                f"Graph, got {type(base).__name__} {base!r:.60}")

    @property
    def n(self) -> int:
        return self.base.n

    @property
    def free_ports(self) -> np.ndarray:
        """How many shortcuts each vertex can still take."""
        return (self.degree_cap - self.base.degree).astype(np.int64)

    def lower_bounds(self) -> tuple[float, float]:
        """Moore / Cerf bounds for (N, cap); they hold for every solution of this problem."""
        return lower_bounds(self.n, self.degree_cap)

    def objective_lower_bound(self) -> float:
        """No solution of this problem scores below this value of its objective."""
        if self.objective == "channel-load":
            # links: the base's plus the budget, and never more than the degree cap allows
            links = min(self.base.m + int(self.budget), self.n * int(self.degree_cap) // 2)
            return channel_load_lower_bound(self.n, self.lower_bounds()[1], links)
        return objective_value(self.objective, *self.lower_bounds())

    def describe(self) -> dict[str, Any]:
        out = {
            "base": self.base_spec,
            "degree_cap": int(self.degree_cap),
            "budget": int(self.budget),
            "objective": self.objective,
            "family": self.family,
        }
        if self.regular:
            out["regular"] = True
        return out

    def graph_with(self, shortcuts: np.ndarray) -> Graph:
        return self.base.with_edges(shortcuts)

    def validate(self, shortcuts: np.ndarray | list) -> np.ndarray:
        """Check a shortcut list; return it as an ``(k, 2)`` int64 array.

        Raises :class:`InvalidSolution` naming the first violation: budget
        exceeded, then, shortcut by shortcut in order, a vertex out of range,
        a self-loop, an edge already in the base, a duplicate shortcut, and
        the first vertex whose degree goes over the cap.
        """
        s = np.asarray(shortcuts, dtype=np.int64)
        if s.size == 0:
            s = np.empty((0, 2), dtype=np.int64)
        if s.ndim != 2 or s.shape[1] != 2:
            raise InvalidSolution(f"shortcuts must be a list of [u, v] pairs, got an array of shape {s.shape}")
        if len(s) > self.budget:
            raise InvalidSolution(f"budget exceeded: {len(s)} shortcuts, budget is {self.budget}")
        n = self.n
        out_of_range = (s < 0) | (s >= n)
        if out_of_range.any():
            i = int(np.flatnonzero(out_of_range.any(axis=1))[0])
            raise InvalidSolution(f"shortcut #{i} ({s[i, 0]}, {s[i, 1]}) has a vertex out of range 0..{n - 1}")
        loops = s[:, 0] == s[:, 1]
        in_base = self.base.has_edges(s)
        keys = np.minimum(s[:, 0], s[:, 1]) * n + np.maximum(s[:, 0], s[:, 1])
        _, first = np.unique(keys, return_index=True)
        duplicate = np.ones(len(s), dtype=bool)
        duplicate[first] = False
        bad = loops | in_base | duplicate
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            u, v = int(s[i, 0]), int(s[i, 1])
            if loops[i]:
                raise InvalidSolution(f"shortcut #{i} ({u}, {v}) is a self-loop")
            if in_base[i]:
                raise InvalidSolution(f"shortcut #{i} ({u}, {v}) is already an edge of the base graph")
            j = int(np.flatnonzero(keys == keys[i])[0])
            raise InvalidSolution(f"shortcut #{i} ({u}, {v}) duplicates shortcut #{j}")
        degree = self.base.degree.astype(np.int64) + np.bincount(s.ravel(), minlength=n)
        over = np.flatnonzero(degree > self.degree_cap)
        if over.size:
            # name the vertex whose cap is crossed first, in shortcut order
            running = self.base.degree.astype(np.int64).copy()
            for i, (u, v) in enumerate(s.tolist()):
                for w in (u, v):
                    running[w] += 1
                    if running[w] > self.degree_cap:
                        raise InvalidSolution(
                            f"degree cap exceeded at vertex {w}: degree {int(degree[w])} > cap {self.degree_cap} "
                            f"(first crossed by shortcut #{i} ({u}, {v}))"
                        )
        if self.regular:
            short = np.flatnonzero(degree < self.degree_cap)
            if short.size:
                w = int(short[0])
                raise InvalidSolution(f"vertex {w} has degree {int(degree[w])}, but this regular problem needs "
                                      f"every vertex at degree {self.degree_cap}")
        return s

    def evaluate(self, shortcuts: np.ndarray | list) -> "Evaluation":
        """Validate, then measure the augmented graph exactly."""
        s = self.validate(shortcuts)
        graph = self.graph_with(s)
        return Evaluation.of(self, summary(graph), graph)


@dataclass(frozen=True)
class Evaluation:
    """Metrics of one solution: exact values, lower bounds and relative gaps."""

    diameter: float
    aspl: float
    objective: float
    lower_bound_diameter: float
    lower_bound_aspl: float
    lower_bound_objective: float
    total_distance: int
    unreachable_pairs: int

    @classmethod
    def of(cls, problem: ShortcutProblem, s: DistanceSummary, graph: Graph | None = None) -> "Evaluation":
        """The metrics from the graph's distance summary (``graph`` itself: for an objective that needs it)."""
        lb_d, lb_a = problem.lower_bounds()
        if problem.objective in OPT_IN_OBJECTIVES and graph is None:
            raise HopbenchError(f"the {problem.objective} objective needs the graph, not only its distances")
        return cls(
            diameter=s.diameter,
            aspl=s.aspl,
            objective=graph_objective_value(problem.objective, graph, s.diameter, s.aspl),
            lower_bound_diameter=lb_d,
            lower_bound_aspl=lb_a,
            lower_bound_objective=problem.objective_lower_bound(),
            total_distance=s.total,
            unreachable_pairs=s.unreachable_pairs,
        )

    @staticmethod
    def _gap(value: float, bound: float) -> float:
        if math.isinf(value) or math.isinf(bound):
            return math.inf
        return (value - bound) / bound if bound else 0.0

    @property
    def gap_diameter(self) -> float:
        return self._gap(self.diameter, self.lower_bound_diameter)

    @property
    def gap_aspl(self) -> float:
        return self._gap(self.aspl, self.lower_bound_aspl)

    @property
    def gap_objective(self) -> float:
        return self._gap(self.objective, self.lower_bound_objective)

    def metrics(self) -> dict[str, float]:
        """The three values stored in a solution file."""
        return {"diameter": self.diameter, "aspl": self.aspl, "objective": self.objective}


@dataclass
class Solution(SolverOutput):
    """A solver's answer to a :class:`ShortcutProblem`: the shortcut edges it adds."""

    problem: ShortcutProblem
    shortcuts: np.ndarray
    evaluation: Evaluation | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        self.shortcuts = np.asarray(self.shortcuts, dtype=np.int64).reshape(-1, 2)

    def evaluate(self) -> Evaluation:
        self.evaluation = self.problem.evaluate(self.shortcuts)
        return self.evaluation

    @property
    def graph(self) -> Graph:
        return self.problem.graph_with(self.shortcuts)

    def to_dict(self) -> dict[str, Any]:
        """The self-contained JSON document (``hopbench.solution/1``) that ``hopbench verify`` checks."""
        return solution_to_dict(self)


def solution_to_dict(solution: Solution) -> dict[str, Any]:
    """The JSON document of a solution (evaluating it first if needed)."""
    from hopbench.harness import __version__

    ev = solution.evaluation or solution.evaluate()
    problem = solution.problem
    doc: dict[str, Any] = {"format": SOLUTION_FORMAT, "problem": problem.describe()}
    if (problem.base_spec or "").startswith("file:") or problem.base_spec is None:
        doc["base_n"] = problem.base.n
        doc["base_edges"] = problem.base.edges.tolist()
    doc.update({
        "solver": {"name": solution.solver, "params": dict(solution.params)},
        "seed": solution.seed,
        "shortcuts": np.asarray(solution.shortcuts, dtype=np.int64).tolist(),
        "metrics": {"diameter": finite_or_none(ev.diameter), "aspl": finite_or_none(ev.aspl),
                    "objective": finite_or_none(ev.objective)},
        "elapsed_s": round(float(solution.elapsed_s), 6),
        "hopbench": __version__,
    })
    if solution.extra:
        doc["extra"] = solution.extra
    return doc


