"""The grid kind's result document (``hopbench.grid/1``)::

    {"format": "hopbench.grid/1",
     "problem": {"width": W, "height": H, "degree": D, "length": R, "objective": "grid-golf"},
     "solver": {"name": NAME, "params": {...}},
     "seed": S,
     "edges": [[u, v], ...],             # vertex x * H + y
     "metrics": {"diameter": d, "aspl": a, "objective": o},
     "elapsed_s": t,
     "hopbench": VERSION}

A disconnected graph's infinite metrics are written as ``null``.
"""
from __future__ import annotations

import math
from typing import Any

from hopbench.harness.documents import field
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.edge_list import pairs_from_json
from hopbench.harness.problems.grid.problem import GRID_FORMAT, GridProblem, GridSolution, solution_to_dict

__all__ = ["problem_from_dict", "solution_from_dict", "solution_to_dict"]
GUIDE = "see the hopbench.grid/1 format in docs/graphgolf.md"


def problem_from_dict(doc: dict[str, Any]) -> GridProblem:
    """The problem a ``hopbench.grid/1`` document names (sizes checked before anything is built)."""
    p = field(doc, "problem", dict, guide=GUIDE)
    values = {key: field(p, key, int, "problem.", guide=GUIDE) for key in ("width", "height", "degree", "length")}
    objective = field(p, "objective", str, "problem.", optional=True, guide=GUIDE) or "grid-golf"
    return GridProblem(values["width"], values["height"], values["degree"], values["length"], objective)


def solution_from_dict(doc: dict[str, Any]) -> tuple[GridSolution, dict[str, float]]:
    """Parse a grid document; returns the solution (not validated) and the metrics stored in it."""
    fmt = field(doc, "format", str, guide=GUIDE)
    if fmt != GRID_FORMAT:
        raise HopbenchError(f"unsupported format {fmt!r}; expected {GRID_FORMAT!r}")
    problem = problem_from_dict(doc)
    edges = pairs_from_json(field(doc, "edges", list, guide=GUIDE), "edges")
    metrics = field(doc, "metrics", dict, guide=GUIDE)
    stored = {}
    for key in ("diameter", "aspl", "objective"):
        value = field(metrics, key, (int, float), "metrics.", optional=True, guide=GUIDE)
        stored[key] = math.inf if value is None else float(value)
    solver = field(doc, "solver", dict, optional=True) or {}
    sol = GridSolution(problem, edges,
                       solver=field(solver, "name", str, "solver.", optional=True) or "",
                       params=field(solver, "params", dict, "solver.", optional=True) or {},
                       seed=field(doc, "seed", int, optional=True),
                       elapsed_s=float(field(doc, "elapsed_s", (int, float), optional=True) or 0.0),
                       extra=field(doc, "extra", dict, optional=True) or {})
    return sol, stored
