"""`HostSwitchGraph`: a solver's answer to a host-switch problem, and its result document.

Hosts are interchangeable, so a graph is its switches' host counts and its switch links; host ids
are given switch by switch (the hosts of switch 0 first) wherever they are written out.

Result document (``hopbench.hostswitch/1``)::

    {"format": "hopbench.hostswitch/1",
     "problem": {"hosts": n, "radix": r, "switches": null, "objective": "h_golf"},
     "hosts_per_switch": [h_0, h_1, ...],      # one count per switch, the switch count is its length
     "links": [[a, b], ...],                   # switch links, switch ids from 0
     "solver": {"name": NAME, "params": {...}}, "seed": S,
     "metrics": {"objective": o, "h_diameter": D, "h_aspl": A, "total": T, ...},
     "elapsed_s": t, "hopbench": VERSION}

A disconnected graph's infinite metrics are written as ``null``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hopbench.harness import caps
from hopbench.harness.documents import field as doc_field
from hopbench.harness.documents import finite_or_none
from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.hostswitch.problem import HostSwitchEvaluation, HostSwitchProblem
from hopbench.harness.problems.kind import SolverOutput

FORMAT = "hopbench.hostswitch/1"
GUIDE = "see docs/graphgolf.md (the host-switch category) for the format"
#: metrics every document must store (and match)
REQUIRED_METRICS = ("objective", "h_diameter", "h_aspl")


@dataclass
class HostSwitchGraph(SolverOutput):
    """``host_counts[s]`` hosts on switch s, and the switch ``links`` (``(k, 2)``, switch ids from 0)."""

    problem: HostSwitchProblem
    host_counts: np.ndarray
    links: np.ndarray
    evaluation: HostSwitchEvaluation | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        self.host_counts = np.ascontiguousarray(self.host_counts, dtype=np.int64).reshape(-1)
        self.links = np.ascontiguousarray(self.links, dtype=np.int64).reshape(-1, 2)

    @property
    def switches(self) -> int:
        return len(self.host_counts)

    def evaluate(self) -> HostSwitchEvaluation:
        """Validate against the problem, then measure (kept in :attr:`evaluation`)."""
        self.evaluation = self.problem.evaluate(self.host_counts, self.links)
        return self.evaluation

    def host_switch(self) -> np.ndarray:
        """The switch of every host (hosts numbered switch by switch)."""
        return np.repeat(np.arange(self.switches, dtype=np.int64), self.host_counts)

    def golf_text(self) -> str:
        """The graph in the competition's file format (:mod:`.golf_file`)."""
        from hopbench.harness.problems.hostswitch.golf_file import write_text

        return write_text(self.problem.radix, self.host_counts, self.links)

    def to_dict(self) -> dict[str, Any]:
        from hopbench.harness import __version__

        ev = self.evaluation or self.evaluate()
        doc: dict[str, Any] = {
            "format": FORMAT,
            "problem": self.problem.describe(),
            "hosts_per_switch": self.host_counts.tolist(),
            "links": self.links.tolist(),
            "solver": {"name": self.solver, "params": dict(self.params)},
            "seed": self.seed,
            "metrics": {k: (int(v) if isinstance(v, (int, np.integer)) else finite_or_none(float(v)))
                        for k, v in ev.metrics().items()},
            "elapsed_s": round(float(self.elapsed_s), 6),
        }
        if self.extra:
            doc["extra"] = self.extra
        doc["hopbench"] = __version__
        return doc


def _field(doc: dict[str, Any], key: str, types: type | tuple, where: str = "", *, optional: bool = False) -> Any:
    return doc_field(doc, key, types, where, optional=optional, document="host-switch document", guide=GUIDE)


def problem_from_dict(doc: dict[str, Any]) -> HostSwitchProblem:
    """The problem a ``hopbench.hostswitch/1`` document answers."""
    fmt = _field(doc, "format", str)
    if fmt != FORMAT:
        raise HopbenchError(f"unsupported format {fmt!r}; expected {FORMAT!r}")
    p = _field(doc, "problem", dict)
    return HostSwitchProblem(hosts=_field(p, "hosts", int, "problem."), radix=_field(p, "radix", int, "problem."),
                             switches=_field(p, "switches", int, "problem.", optional=True),
                             objective=_field(p, "objective", str, "problem.", optional=True) or "h_golf")


def _int_array(values: list, what: str, width: int | None = None) -> np.ndarray:
    limit = caps.EDGES if width else caps.VERTICES
    limit.check(len(values), f"host-switch document: field {what!r}")
    try:
        arr = np.array(values, dtype=object)
        flat = arr.reshape(-1) if width is None else arr.reshape(-1, width).reshape(-1)
    except ValueError:
        raise HopbenchError(f"host-switch document: field {what!r} must be a list of "
                            f"{'pairs of integers' if width else 'integers'}; {GUIDE}") from None
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in flat.tolist()):
        raise HopbenchError(f"host-switch document: field {what!r} holds a value that is not an integer; {GUIDE}")
    if flat.size and max(abs(int(flat.min())), abs(int(flat.max()))) >= 2**62:
        raise HopbenchError(f"host-switch document: field {what!r} holds an integer out of range")
    out = flat.astype(np.int64)
    return out if width is None else out.reshape(-1, width)


def graph_from_dict(doc: dict[str, Any]) -> tuple[HostSwitchGraph, dict[str, float]]:
    """Parse a document; returns the graph (not yet validated) and the metrics stored in it."""
    problem = problem_from_dict(doc)
    counts = _int_array(_field(doc, "hosts_per_switch", list), "hosts_per_switch")
    links = _int_array(_field(doc, "links", list), "links", 2)
    metrics = _field(doc, "metrics", dict, optional=True) or {}
    stored: dict[str, float] = {}
    for key, value in metrics.items():
        if value is None:
            stored[key] = math.inf
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            stored[key] = float(value)
        else:
            raise HopbenchError(f"host-switch document: metric {key!r} must be a number, got {value!r:.40}")
    solver = _field(doc, "solver", dict, optional=True) or {}
    name = solver.get("name", "")
    params = solver.get("params", {})
    graph = HostSwitchGraph(problem, counts, links, solver=name if isinstance(name, str) else "",
                            params=params if isinstance(params, dict) else {},
                            seed=_field(doc, "seed", int, optional=True),
                            elapsed_s=float(_field(doc, "elapsed_s", (int, float), optional=True) or 0.0),
                            extra=_field(doc, "extra", dict, optional=True) or {})
    return graph, stored
