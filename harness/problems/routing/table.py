"""`RoutingTable`: one route per ordered subset pair; validation, metrics and JSON.

Validation (:meth:`RoutingTable.evaluate`) names the first violation:

1. every ordered pair of distinct subset nodes has exactly one route;
2. each route is a walk on existing channels from its source to its destination;
3. with ``rules = "angara"`` it is spelled by a path of the routing graph in use;
4. it is minimal (length = hop distance) when the problem asks;
5. the table is deadlock-free: its channel dependency graph has no cycle
   through a turn (same-direction ring cycles are left to the bubble rule).

Metrics (γ_c = number of routes crossing channel c):

``max_load``      max γ_c over all channels (the edge-forwarding index)
``min_load``      min γ_c over C
``sigma4``        σ(4, R) = ((1/|C|) Σ_{c∈C} |γ_perfect − γ_c|^4)^(1/4)
``gamma_perfect`` (total minimal route length) / |C|
``channels``      |C|, C = channels lying on at least one minimal route (one the rules
                  allow) between two subset nodes
``max_length``, ``mean_length``  route lengths in hops
``alpha_sat``     (|N| − 1) / max γ_c: the uniform-traffic injection rate (per node, in
                  channel bandwidths) at which the busiest channel saturates
``objective``     the problem's objective (see :mod:`hopbench.harness.problems.routing.problem`)

A non-minimal table may load channels outside C; they join C in the σ and
min sums (γ_perfect keeps its definition).

JSON (``hopbench.routes/1``)::

    {"format": "hopbench.routes/1", "torus": [4, 2, 2, 2], "nodes": [0, 1, ...],
     "subset": "desmos8", "rules": "angara", "minimal": true, "objective": "max_load",
     "directions": ["+X", "+Y", ...],
     "routes": {"0,1": ["+X"], "0,5": ["+X", "+Y"], ...},
     "solver": {"name": ..., "params": {...}}, "seed": S,
     "metrics": {...}, "elapsed_s": t, "hopbench": VERSION}
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hopbench.harness.documents import field as document_field
from hopbench.harness.errors import HopbenchError, InvalidSolution
from hopbench.harness.problems.kind import SolverOutput
from hopbench.harness.problems.routing.candidates import route_channels
from hopbench.harness.problems.routing.deadlock import loads_and_dependencies, turn_cycle
from hopbench.harness.problems.routing.network import direction_name, parse_dims, parse_direction
from hopbench.harness.problems.routing.problem import RoutingProblem

ROUTES_FORMAT = "hopbench.routes/1"

#: metric keys in the order they are printed and stored
METRIC_KEYS = ("objective", "max_load", "min_load", "sigma4", "gamma_perfect", "channels",
               "max_length", "mean_length", "alpha_sat", "pairs")


def sigma(loads: np.ndarray, gamma_perfect: float, k: int = 4) -> float:
    """σ(k, R) over the given channel loads."""
    if not len(loads):
        return 0.0
    dev = np.abs(gamma_perfect - loads.astype(np.float64))
    return float(np.mean(dev ** k) ** (1.0 / k))


def objective_value(objective: str, max_load: float, sigma4: float) -> float:
    if objective == "sigma4":
        return float(sigma4)
    return float(max_load) + float(sigma4) / (1.0 + float(sigma4))


@dataclass(frozen=True)
class RoutingEvaluation:
    """Metrics of a valid routing table (see the module docstring)."""

    objective: float
    max_load: int
    min_load: int
    sigma4: float
    gamma_perfect: float
    channels: int
    max_length: int
    mean_length: float
    alpha_sat: float
    pairs: int

    def metrics(self) -> dict[str, float]:
        return {k: getattr(self, k) for k in METRIC_KEYS}


def evaluate_loads(problem: RoutingProblem, loads: np.ndarray, lengths: np.ndarray) -> RoutingEvaluation:
    """Metrics from per-channel loads and route lengths (no validation)."""
    cset = problem.channel_set | (loads > 0)
    gp = problem.gamma_perfect
    on_c = loads[cset]
    max_load = int(loads.max()) if loads.size else 0
    s4 = sigma(on_c, gp)
    return RoutingEvaluation(
        objective=objective_value(problem.objective, max_load, s4),
        max_load=max_load,
        min_load=int(on_c.min()) if on_c.size else 0,
        sigma4=s4,
        gamma_perfect=float(gp),
        channels=int(problem.channel_set.sum()),
        max_length=int(lengths.max()) if lengths.size else 0,
        mean_length=float(lengths.mean()) if lengths.size else 0.0,
        alpha_sat=(problem.num_nodes - 1) / max_load if max_load else math.inf,
        pairs=int(problem.num_pairs),
    )


@dataclass
class RoutingTable(SolverOutput):
    """A solver's answer to a :class:`RoutingProblem`.

    Routes are stored flattened in table order (``problem.pairs``): pair p's
    directions are ``dirs[offsets[p]:offsets[p+1]]``.
    """

    problem: RoutingProblem
    offsets: np.ndarray
    dirs: np.ndarray
    evaluation: RoutingEvaluation | None = field(default=None, kw_only=True)
    #: pairs a document did not give a route for (reported by evaluate)
    missing: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.offsets = np.asarray(self.offsets, dtype=np.int64)
        # one byte a step (a direction is 0..7): int64 made 8x8x8x8's 134 million steps 1 GB a copy.
        # Values int8 cannot hold stay int64, so that validation names them instead of a wrapped value
        dirs = np.asarray(self.dirs)
        if dirs.dtype != np.int8:
            fits = not dirs.size or (int(dirs.min()) >= -128 and int(dirs.max()) <= 127)
            dirs = dirs.astype(np.int8 if fits else np.int64)
        self.dirs = dirs

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_routes(cls, problem: RoutingProblem, routes: list[list[int]] | list[np.ndarray], **kw: Any
                    ) -> "RoutingTable":
        """From one direction list per pair, in table order."""
        lengths = np.fromiter((len(r) for r in routes), dtype=np.int64, count=len(routes))
        offsets = np.zeros(len(routes) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        # one pass over all steps: a per-route array would cost a numpy call per pair
        flat = itertools.chain.from_iterable(routes)
        dirs = np.fromiter(flat, dtype=np.int64, count=int(offsets[-1]))
        return cls(problem, offsets, dirs, **kw)

    @classmethod
    def from_matrix(cls, problem: RoutingProblem, matrix: np.ndarray, lengths: np.ndarray, **kw: Any
                    ) -> "RoutingTable":
        """From a ``(P, Lmax)`` direction matrix whose row p holds ``lengths[p]`` directions."""
        lengths = np.asarray(lengths, dtype=np.int64)
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        width = matrix.shape[1] if matrix.ndim == 2 else 0
        mask = np.arange(width)[None, :] < lengths[:, None]
        return cls(problem, offsets, np.asarray(matrix)[mask], **kw)

    # ------------------------------------------------------------------ access

    def route(self, src: int, dst: int) -> list[int]:
        p = self.problem.pair_index(src, dst)
        return self.dirs[self.offsets[p]:self.offsets[p + 1]].tolist()

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def channels(self) -> np.ndarray:
        """Channel ids of every step (meaningful for valid walks only; see :meth:`validate`)."""
        self._check_walkable()
        src, _ = self.problem.pairs
        return route_channels(self.problem.network.neighbor, src, self.offsets, self.dirs)

    def loads(self) -> np.ndarray:
        """γ_c for every channel id (meaningful for valid walks only; see :meth:`validate`)."""
        self._check_walkable()
        return loads_and_dependencies(self.problem.pairs[0], self.offsets, self.dirs, self.problem.network.neighbor)[0]

    def _check_walkable(self) -> None:
        """The compiled walks index arrays by direction and offset without bounds checks: refuse a table
        whose offsets or directions would take them outside (an unvalidated file)."""
        offsets, dirs = self.offsets, self.dirs
        if len(offsets) != self.problem.num_pairs + 1 or offsets[0] != 0 or offsets[-1] != len(dirs) \
                or (np.diff(offsets) < 0).any():
            raise InvalidSolution(f"the table must hold exactly one route for each of the "
                                  f"{self.problem.num_pairs} ordered pairs")
        if len(dirs) and (int(dirs.min()) < 0 or int(dirs.max()) >= self.problem.network.ndir):
            raise InvalidSolution("a route has a step with no such direction; 'hopbench verify' names it")

    # ------------------------------------------------------------------ validation

    def _pair_text(self, p: int) -> str:
        s, d = self.problem.pairs
        return f"{int(s[p])}->{int(d[p])}"

    def validate(self) -> np.ndarray:
        """Check the table (see the module docstring); return γ_c of every channel slot. Raises InvalidSolution."""
        problem = self.problem
        net = problem.network
        P = problem.num_pairs
        if self.missing:
            raise InvalidSolution(f"no route for pair {self._pair_text(self.missing[0])} "
                                  f"({len(self.missing)} of {P} pairs missing)")
        if len(self.offsets) != P + 1 or self.offsets[0] != 0 or self.offsets[-1] != len(self.dirs):
            raise InvalidSolution(f"the table must hold exactly one route for each of the {P} ordered pairs")
        src, dst = problem.pairs
        lengths = self.lengths
        if (lengths < 0).any():
            raise InvalidSolution("route offsets must be non-decreasing")
        angara = problem.rules == "angara"
        r, t, code = problem.graph.check(src, dst, self.offsets, self.dirs, rules=angara)
        if code:
            route = [direction_name(int(d), net.n) if 0 <= d < net.ndir else str(int(d))
                     for d in self.dirs[self.offsets[r]:self.offsets[r + 1]]]
            where = f"route {self._pair_text(r)} {' '.join(route) or '(empty)'}"
            if code == 1:
                d = int(self.dirs[self.offsets[r] + t])
                node = net.walk(int(src[r]), self.dirs[self.offsets[r]:self.offsets[r] + t])[-1]
                if not 0 <= d < net.ndir:
                    raise InvalidSolution(f"{where}: step {t + 1} has no direction {d}")
                raise InvalidSolution(f"{where}: step {t + 1} ({direction_name(d, net.n)} from node {node}) "
                                      f"uses a channel that does not exist (size-2 dimensions are meshes)")
            if code == 2:
                raise InvalidSolution(f"{where}: breaks the Angara routing rules at step {t + 1} "
                                      f"(no routing-graph path spells it: direction order +X+Y+Z+K-X-Y-Z-K, "
                                      f"direction bits, one First/Last Step)")
            end = net.walk(int(src[r]), self.dirs[self.offsets[r]:self.offsets[r + 1]])[-1]
            raise InvalidSolution(f"{where}: ends at node {end}, not {int(dst[r])}")
        if problem.minimal or problem.rules == "minimal":
            long = np.flatnonzero(lengths != problem.pair_distance)
            if len(long):
                p = int(long[0])
                raise InvalidSolution(f"route {self._pair_text(p)} has {int(lengths[p])} hops; the shortest is "
                                      f"{int(problem.pair_distance[p])} and the problem asks for minimal routes")
        loads, edges = loads_and_dependencies(src, self.offsets, self.dirs, net.neighbor)
        cycle = turn_cycle(edges, net.num_channel_slots, net.ndir)
        if cycle is not None:
            text = " -> ".join(net.channel_name(c) for c in cycle)
            raise InvalidSolution(f"deadlock: the channel dependency graph has a cycle through a turn: {text}")
        return loads

    def evaluate(self) -> RoutingEvaluation:
        """Validate, then measure; the result is kept in :attr:`evaluation`."""
        loads = self.validate()
        self.evaluation = evaluate_loads(self.problem, loads, self.lengths)
        return self.evaluation

    # ------------------------------------------------------------------ JSON

    def to_dict(self) -> dict[str, Any]:
        """The self-contained ``hopbench.routes/1`` document (evaluating first if needed)."""
        from hopbench.harness import __version__

        ev = self.evaluation or self.evaluate()
        problem = self.problem
        net = problem.network
        names = net.direction_names()
        src, dst = problem.pairs
        routes = {}
        for p in range(problem.num_pairs):
            routes[f"{int(src[p])},{int(dst[p])}"] = [names[int(d)] for d in
                                                      self.dirs[self.offsets[p]:self.offsets[p + 1]]]
        doc: dict[str, Any] = {
            "format": ROUTES_FORMAT,
            "torus": list(net.dims),
            "nodes": list(problem.nodes),
            "subset": problem.subset,
            "rules": problem.rules,
            "minimal": problem.minimal,
            "objective": problem.objective,
            "solver": {"name": self.solver, "params": dict(self.params)},
            "seed": self.seed,
            "metrics": {k: _json_number(v) for k, v in ev.metrics().items()},
            "elapsed_s": round(float(self.elapsed_s), 6),
            "directions": names,
            "routes": routes,
        }
        if self.extra:
            doc["extra"] = self.extra
        doc["hopbench"] = __version__
        return doc


def _json_number(x: float) -> float | int | None:
    if isinstance(x, (int, np.integer)):
        return int(x)
    if math.isinf(x) or math.isnan(x):
        return None
    return float(x)


def _field(doc: dict[str, Any], key: str, types: type | tuple, *, optional: bool = False) -> Any:
    return document_field(doc, key, types, optional=optional, document="routing table document",
                 guide="see docs/routing.md for the format")


def problem_from_dict(doc: dict[str, Any]) -> RoutingProblem:
    """The problem a ``hopbench.routes/1`` document answers (its routes are not read)."""
    fmt = _field(doc, "format", str)
    if fmt != ROUTES_FORMAT:
        raise HopbenchError(f"unsupported format {fmt!r}; expected {ROUTES_FORMAT!r}")
    dims = _field(doc, "torus", list)
    nodes = _field(doc, "nodes", (list, str), optional=True)
    problem = RoutingProblem(
        network=parse_dims(dims),  # [4.0, 4] or [true, 4]: a one-line error naming the torus
        nodes=None if nodes in (None, "all") else nodes,
        rules=_field(doc, "rules", str, optional=True) or "angara",
        minimal=True if doc.get("minimal") is None else _field(doc, "minimal", bool),
        objective=_field(doc, "objective", str, optional=True) or "max_load",
        subset=_field(doc, "subset", str, optional=True),
    )
    if isinstance(nodes, str) and nodes != "all":
        raise HopbenchError(f"routing table document: 'nodes' must be a list of node ids or \"all\", got {nodes!r}")
    return problem


def table_from_dict(doc: dict[str, Any]) -> tuple[RoutingTable, dict[str, float]]:
    """Parse a ``hopbench.routes/1`` document; returns the table and its stored metrics.

    A document that cannot be read as the format raises :class:`HopbenchError`;
    missing or surplus pairs are kept for :meth:`RoutingTable.evaluate` to
    report (they make the table invalid, not unreadable).
    """
    problem = problem_from_dict(doc)
    net = problem.network
    raw = _field(doc, "routes", dict)
    src, dst = problem.pairs
    routes: list[list[int]] = []
    missing: list[int] = []
    keys = [f"{a},{b}" for a, b in zip(src.tolist(), dst.tolist())]
    # direction names in every spelling parse_direction accepts; unknown names take the slow path
    lookup = {}
    for d in range(2 * net.n):
        name = direction_name(d, net.n)
        lookup[name] = lookup[name[0] + name[1].lower()] = d
    for p, key in enumerate(keys):
        steps = raw.get(key)
        if steps is None:
            missing.append(p)
            routes.append([])
            continue
        if not isinstance(steps, list):
            raise HopbenchError(f"routing table document: route {key!r} must be a list of directions like \"+X\"")
        try:
            routes.append(list(map(lookup.__getitem__, steps)))
        except (KeyError, TypeError):
            routes.append([parse_direction(s, net.n) if isinstance(s, str) else _bad_direction(key, s, net.n)
                           for s in steps])
    extra_keys = sorted(set(raw) - set(keys))
    if extra_keys:
        raise InvalidSolution(f"route {extra_keys[0]!r} is not a pair of distinct subset nodes "
                              f"({len(extra_keys)} such keys); keys are \"src,dst\" node ids")
    solver = _field(doc, "solver", dict, optional=True) or {}
    metrics = _field(doc, "metrics", dict, optional=True) or {}
    stored: dict[str, float] = {}
    for key, value in metrics.items():
        if value is None:
            stored[key] = math.inf
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            stored[key] = float(value)
        else:
            raise HopbenchError(f"routing table document: metric {key!r} must be a number, got {value!r:.40}")
    table = RoutingTable.from_routes(
        problem, routes,
        solver=solver.get("name", "") if isinstance(solver.get("name", ""), str) else "",
        params=solver.get("params", {}) if isinstance(solver.get("params", {}), dict) else {},
        seed=_field(doc, "seed", int, optional=True),
        elapsed_s=float(_field(doc, "elapsed_s", (int, float), optional=True) or 0.0),
        extra=_field(doc, "extra", dict, optional=True) or {},
    )
    table.missing = missing
    return table, stored


def _bad_direction(key: str, value: Any, n: int) -> int:
    names = ", ".join(direction_name(d, n) for d in range(2 * n))
    raise HopbenchError(f"routing table document: route {key!r} has step {value!r}; steps are direction names "
                        f"({names})")
