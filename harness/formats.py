"""File formats: the self-contained solution JSON and Graph Golf edge lists.

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

import gzip
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from harness.errors import HopbenchError
from harness.graph import Graph
from harness.problem import ShortcutProblem, Solution
from harness.topologies import parse_spec

SOLUTION_FORMAT = "hopbench.solution/1"


def _finite_or_none(x: float) -> float | None:
    return None if x is None or math.isinf(x) or math.isnan(x) else (int(x) if float(x).is_integer() and
                                                                       abs(x) < 2**53 else float(x))


def json_default(value: Any) -> Any:
    """``json.dumps(default=...)`` hook for numpy scalars and arrays."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def strict_json(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None, so it dumps as strict JSON."""
    if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
        return None
    if isinstance(value, dict):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(v) for v in value]
    return value


def _none_to_inf(x: Any) -> float:
    return math.inf if x is None else float(x)


def problem_to_dict(problem: ShortcutProblem) -> dict[str, Any]:
    return problem.describe()


def solution_to_dict(solution: Solution) -> dict[str, Any]:
    """The JSON document of a solution (evaluating it first if needed)."""
    from harness import __version__

    ev = solution.evaluation or solution.evaluate()
    problem = solution.problem
    doc: dict[str, Any] = {"format": SOLUTION_FORMAT, "problem": problem_to_dict(problem)}
    if (problem.base_spec or "").startswith("file:") or problem.base_spec is None:
        doc["base_n"] = problem.base.n
        doc["base_edges"] = problem.base.edges.tolist()
    doc.update({
        "solver": {"name": solution.solver, "params": dict(solution.params)},
        "seed": solution.seed,
        "shortcuts": np.asarray(solution.shortcuts, dtype=np.int64).tolist(),
        "metrics": {"diameter": _finite_or_none(ev.diameter), "aspl": _finite_or_none(ev.aspl),
                    "objective": _finite_or_none(ev.objective)},
        "elapsed_s": round(float(solution.elapsed_s), 6),
        "hopbench": __version__,
    })
    if solution.extra:
        doc["extra"] = solution.extra
    return doc


def dumps(doc: dict[str, Any], *, indent: int | None = None) -> str:
    return json.dumps(doc, indent=indent, allow_nan=False)


def read_json(path: str | Path) -> dict[str, Any]:
    """Read a JSON object from a file; unreadable input raises :class:`HopbenchError`."""
    p = Path(path)
    try:
        raw = p.read_bytes()
        # published boards gzip their large solution files (.json.gz)
        text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()
    except FileNotFoundError:
        raise HopbenchError(f"file {str(p)!r} does not exist; check the path") from None
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise HopbenchError(f"cannot read {str(p)!r} ({exc.__class__.__name__}); give a JSON file") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HopbenchError(f"{p} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(doc, dict):
        raise HopbenchError(f"{p} must hold a JSON object with a \"format\" field, got {type(doc).__name__}")
    return doc


# --------------------------------------------------------------------------- strict field access


def field(doc: dict[str, Any], key: str, types: type | tuple, where: str = "", *, optional: bool = False) -> Any:
    """``doc[key]`` checked against ``types``; a missing or mistyped field is a one-line error."""
    name = f"{where}{key}"
    if key not in doc:
        if optional:
            return None
        raise HopbenchError(f"missing field {name!r}; see the solution format in the README")
    value = doc[key]
    if value is None and optional:
        return None
    types_t = types if isinstance(types, tuple) else (types,)
    if isinstance(value, bool) and bool not in types_t:
        ok = False
    else:
        ok = isinstance(value, types_t)
    if not ok:
        expected = " or ".join(t.__name__ for t in types_t)
        raise HopbenchError(f"field {name!r} must be {expected}, got {type(value).__name__} {value!r:.40}")
    return value


def edge_list(value: Any, name: str) -> np.ndarray:
    """A JSON list of ``[u, v]`` integer pairs as an ``(k, 2)`` int64 array."""
    if not isinstance(value, list):
        raise HopbenchError(f"field {name!r} must be a list of [u, v] pairs")
    for i, pair in enumerate(value):
        if (not isinstance(pair, list) or len(pair) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in pair)):
            raise HopbenchError(f"field {name!r}: entry #{i} {pair!r:.40} is not a pair of integers [u, v]")
    return np.asarray(value, dtype=np.int64).reshape(-1, 2)


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
        base = Graph(n, edge_list(doc["base_edges"], "base_edges"), dedupe=False)
    else:
        base = parse_spec(spec)
    return ShortcutProblem(base, cap, budget, objective, family, base_spec=spec, regular=regular)


def solution_from_dict(doc: dict[str, Any]) -> tuple[Solution, dict[str, float]]:
    """Parse a solution document; returns the solution and the metrics stored in it."""
    fmt = field(doc, "format", str)
    if fmt != SOLUTION_FORMAT:
        raise HopbenchError(f"unsupported format {fmt!r}; expected {SOLUTION_FORMAT!r}")
    problem = problem_from_dict(doc)
    shortcuts = edge_list(field(doc, "shortcuts", list), "shortcuts")
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


def edge_list_text(graph: Graph) -> str:
    """A Graph Golf edge list: one ``u v`` line per edge."""
    return "".join(f"{u} {v}\n" for u, v in graph.edges.tolist())


def write_edge_list(graph: Graph, path: str | Path) -> None:
    """Write :func:`edge_list_text` to ``path``."""
    Path(path).write_text(edge_list_text(graph))
