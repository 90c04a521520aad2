"""Re-verification of stored results: a document is checked from scratch.

``verify_document`` dispatches on the document's ``format`` field, so every
kind of result file (shortcut solutions, routing tables, ...) verifies through
the same command.  A verifier returns a :class:`Verdict`; it raises
:class:`~harness.errors.HopbenchError` only when the document cannot be read
as its format at all.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

from harness.errors import HopbenchError, InvalidSolution

#: tolerance on stored ASPL / objective values (they are written with 17 digits)
TOLERANCE = 1e-9


@dataclass
class Verdict:
    valid: bool
    reason: str = ""
    metrics: dict[str, Any] = field(default_factory=dict)
    stored: dict[str, Any] = field(default_factory=dict)


def close_enough(a: float, b: float) -> bool:
    """Stored and recomputed metric agree (exactly for infinities, to TOLERANCE otherwise)."""
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


def verify_solution(doc: dict[str, Any]) -> Verdict:
    from harness.formats import solution_from_dict
    from harness.topologies import parse_spec

    solution, stored = solution_from_dict(doc)
    spec = solution.problem.base_spec or ""
    if "base_edges" in doc and not spec.startswith("file:"):
        # embedded edges stand in for a file that may be gone; a named topology is rebuilt instead
        named = parse_spec(spec)
        if named != solution.problem.base:
            return Verdict(False, f"the embedded base_edges are not the graph {spec!r} names", stored=stored)
    try:
        ev = solution.evaluate()
    except InvalidSolution as exc:
        return Verdict(False, f"invalid solution: {exc}", stored=stored)
    metrics = ev.metrics()
    for key in ("diameter", "aspl", "objective"):
        if not close_enough(metrics[key], stored[key]):
            return Verdict(False, f"stored {key} {stored[key]!r} does not match the recomputed {metrics[key]!r}",
                           metrics, stored)
    return Verdict(True, "", metrics, stored)


VERIFIERS: dict[str, Callable[[dict[str, Any]], Verdict]] = {
    "hopbench.solution/1": verify_solution,
}


def register_verifier(fmt: str, fn: Callable[[dict[str, Any]], Verdict]) -> None:
    VERIFIERS[fmt] = fn


def _load_plugins() -> None:
    # formats defined by optional modules register themselves on import
    import importlib

    for module in ("harness.routing",):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


def verify_document(doc: dict[str, Any]) -> Verdict:
    fmt = doc.get("format")
    if not isinstance(fmt, str):
        raise HopbenchError("missing field 'format'; a hopbench result file names its format, "
                            "e.g. \"hopbench.solution/1\"")
    if fmt not in VERIFIERS:
        _load_plugins()
    if fmt not in VERIFIERS:
        raise HopbenchError(f"unsupported format {fmt!r}; expected one of {', '.join(sorted(VERIFIERS))}")
    return VERIFIERS[fmt](doc)
