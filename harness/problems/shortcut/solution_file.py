"""The shortcut kind's result document: the self-contained solution JSON (``hopbench.solution/1``).

Solution file (``hopbench.solution/1``)::

    {"format": "hopbench.solution/1",
     "problem": {"base": SPEC, "degree_cap": D, "budget": C, "objective": O, "family": F},
     "base_edges": [[u, v], ...],        # only when the base is file:..., with "base_n"
     "solver": {"name": NAME, "params": {...}},
     "seed": S,
     "shortcuts": [[u, v], ...],
     "metrics": {"diameter": d, "aspl": a, "objective": o},
     "elapsed_s": t,
     "hopbench": VERSION}

A disconnected graph's infinite metrics are written as ``null``.  Files whose
base is ``file:`` carry the base edges, so a solution verifies on a machine
that does not have the original edge file.
"""
from __future__ import annotations

import math
from typing import Any

from hopbench.harness import caps
from hopbench.harness.documents import field
from hopbench.harness.errors import HopbenchError
from hopbench.harness.graphs.edge_list import pairs_from_json
from hopbench.harness.graphs.graph import Graph
from hopbench.harness.graphs.topologies import parse_spec
from hopbench.harness.problems.shortcut.names import SOLUTION_FORMAT
from hopbench.harness.problems.shortcut.problem import ShortcutProblem, Solution, solution_to_dict

__all__ = ["SOLUTION_FORMAT", "problem_from_dict", "solution_from_dict", "solution_to_dict"]


def _none_to_inf(x: Any) -> float:
    return math.inf if x is None else float(x)


def problem_from_dict(doc: dict[str, Any]) -> ShortcutProblem:
    """Rebuild the problem of a solution document (using embedded base edges when present)."""
    p = field(doc, "problem", dict)
    spec = field(p, "base", str, "problem.")
    cap = field(p, "degree_cap", int, "problem.")
    budget = field(p, "budget", int, "problem.")
    objective = field(p, "objective", str, "problem.", optional=True) or "aspl"
    family = field(p, "family", str, "problem.", optional=True)
    regular = bool(field(p, "regular", bool, "problem.", optional=True))
    if "base_edges" in doc:
        n = field(doc, "base_n", int)
        # a declared size is checked before anything of that size is built (or verified)
        caps.VERTICES.check(n, "field 'base_n'")
        base = Graph(n, pairs_from_json(doc["base_edges"], "base_edges"), dedupe=False)
    else:
        base = parse_spec(spec)
    return ShortcutProblem(base, cap, budget, objective, family, base_spec=spec, regular=regular)


def solution_from_dict(doc: dict[str, Any]) -> tuple[Solution, dict[str, float]]:
    """Parse a solution document; returns the solution and the metrics stored in it."""
    fmt = field(doc, "format", str)
    if fmt != SOLUTION_FORMAT:
        raise HopbenchError(f"unsupported format {fmt!r}; expected {SOLUTION_FORMAT!r}")
    problem = problem_from_dict(doc)
    shortcuts = pairs_from_json(field(doc, "shortcuts", list), "shortcuts")
    metrics = field(doc, "metrics", dict)
    stored = {}
    for key in ("diameter", "aspl", "objective"):
        stored[key] = _none_to_inf(field(metrics, key, (int, float), "metrics.", optional=True))
    solver = field(doc, "solver", dict, optional=True) or {}
    name = field(solver, "name", str, "solver.", optional=True) or ""
    params = field(solver, "params", dict, "solver.", optional=True) or {}
    seed = field(doc, "seed", int, optional=True)
    elapsed = field(doc, "elapsed_s", (int, float), optional=True) or 0.0
    extra = field(doc, "extra", dict, optional=True) or {}
    sol = Solution(problem, shortcuts, solver=name, params=params, seed=seed, elapsed_s=float(elapsed), extra=extra)
    return sol, stored


