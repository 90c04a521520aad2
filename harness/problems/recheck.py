"""Whether a result answers the problem it was asked: canonical problem descriptions compared.

A solver returns a solution *object*; what it claims to solve is that object's problem.  The
harness compares the problem a result document describes with the one it asked
(:meth:`hopbench.harness.problems.kind.ProblemKind.check_result`), by their ``describe()`` dicts written
canonically, so that a ring:4 answer is never filed under ring:8.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hopbench.harness.documents import json_default, strict_json
from hopbench.harness.errors import HopbenchError


def canonical(description: Mapping[str, Any]) -> str:
    """A problem's ``describe()`` as one comparable text (keys sorted, numbers as JSON writes them)."""
    return json.dumps(strict_json(dict(description)), sort_keys=True, default=json_default)


def _shown(value: Any, width: int = 60) -> str:
    text = json.dumps(strict_json(value), default=json_default) if value is not None else "none"
    return text if len(text) <= width else text[:width - 3] + "..."


def problem_mismatch(expected: Mapping[str, Any], claimed: Mapping[str, Any]) -> str | None:
    """None when ``claimed`` (a result's problem) is ``expected`` (the problem asked); else a one-line
    reason naming the first field that differs."""
    if canonical(expected) == canonical(claimed):
        return None
    for key in sorted(set(expected) | set(claimed)):
        if canonical({key: expected.get(key)}) != canonical({key: claimed.get(key)}):
            return (f"the solution is for another problem: its {key} is {_shown(claimed.get(key))}, the problem's "
                    f"is {_shown(expected.get(key))}")
    return "the solution is for another problem"  # pragma: no cover - canonical texts differ in some key


def document_problem(kind: Any, doc: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``describe()`` of the problem a result document of ``kind`` answers: its ``"problem"`` field
    (the convention of hopbench's formats), else the problem of its network (``kind.graph_of``)."""
    claimed = doc.get("problem")
    if isinstance(claimed, Mapping):
        return claimed
    try:
        return kind.graph_of(dict(doc)).problem
    except HopbenchError as exc:
        raise HopbenchError(f"cannot tell which problem a {kind.name} result answers ({exc}); the kind's documents "
                            f"need a \"problem\" field, or the kind a check_result method") from None
