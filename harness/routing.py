"""Angara routing on torus interconnects (seed 003: Mukosey, Semenov, Tretiakov 2021).

The public API of the routing modules; the implementation is split by concept:

=============================  ==========================================================
:mod:`harness.routing_network`   tori, directions, channels, distances
:mod:`harness.routing_graph`     Angara rules, the routing graph (Sect. 3.1) and its
                                 deadlock-free extension by Theorem 2 (Sect. 3.2)
:mod:`harness.routing_candidates` every minimal legal route of every pair
:mod:`harness.routing_deadlock`  the channel-dependency-graph check of a table
:mod:`harness.routing_problem`   :class:`RoutingProblem` and the named node subsets
:mod:`harness.routing_table`     :class:`RoutingTable`: validation, metrics, JSON
=============================  ==========================================================

This module also plugs routing into the rest of hopbench: the
``hopbench.routes/1`` verifier, suite instances (:func:`routing_instance_id`,
:func:`routing_problem`) and the small problems of the solver conformance
tests (:func:`sample_problems`).

>>> p = routing_problem({"torus": "4x2x2x2", "subset": "desmos8"})
>>> routing_instance_id({"torus": "4x2x2x2", "subset": "desmos8"}), p.num_pairs
('torus:4x2x2x2/desmos8', 56)
"""
from __future__ import annotations

from typing import Any

from harness.errors import HopbenchError, InvalidSolution
from harness.routing_graph import RoutingGraph, routing_graph
from harness.routing_network import Torus, direction_name, format_dims, parse_dims, parse_direction, torus
from harness.routing_problem import OBJECTIVES, RULES, SUBSETS, RoutingProblem, parse_nodes, subset_nodes
from harness.routing_table import (METRIC_KEYS, ROUTES_FORMAT, RoutingEvaluation, RoutingTable, evaluate_loads,
                                   table_from_dict)
from harness.verification import Verdict, close_enough, register_verifier

__all__ = [
    "METRIC_KEYS", "OBJECTIVES", "ROUTES_FORMAT", "RULES", "SUBSETS", "RoutingEvaluation", "RoutingGraph",
    "RoutingProblem", "RoutingTable", "Torus", "direction_name", "evaluate_loads", "format_dims",
    "make_problem", "parse_dims", "parse_direction", "parse_nodes", "routing_graph", "routing_instance_id",
    "routing_problem", "sample_problems", "subset_nodes", "table_from_dict", "torus", "verify_routes",
]


def make_problem(torus_spec: str | tuple, *, nodes: str | list | None = None, subset: str | None = None,
                 rules: str = "angara", minimal: bool = True, objective: str = "max_load") -> RoutingProblem:
    """Build a problem from a torus spec and either a node list or a subset name (or neither: all nodes)."""
    net = torus(parse_dims(torus_spec))
    if nodes is not None and subset is not None:
        raise HopbenchError("give either a node list or a subset name, not both")
    if subset is not None:
        return RoutingProblem(net, subset_nodes(subset, net), rules, minimal, objective, subset=subset)
    if nodes is not None:
        chosen = parse_nodes(nodes, net.num_nodes)
        return RoutingProblem(net, chosen, rules, minimal, objective,
                              subset="all" if len(chosen) == net.num_nodes else None)
    return RoutingProblem(net, None, rules, minimal, objective)


# --------------------------------------------------------------------------- suites


def _compact(nodes: tuple[int, ...]) -> str:
    """``(0, 1, 2, 5)`` -> ``"0-2,5"``."""
    parts, start = [], None
    for i, v in enumerate(nodes):
        if start is None:
            start = v
        if i + 1 == len(nodes) or nodes[i + 1] != v + 1:
            parts.append(str(start) if start == v else f"{start}-{v}")
            start = None
    return ",".join(parts)


def routing_problem(fields: dict[str, Any]) -> RoutingProblem:
    """The problem of a suite instance table (keys ``torus``, optional ``nodes`` or ``subset``,
    ``rules``, ``minimal``, ``objective``; other keys such as ``reference`` are ignored)."""
    if "torus" not in fields:
        raise HopbenchError("a routing instance needs a 'torus' key, e.g. torus = \"4x2x2x2\"")
    minimal = fields.get("minimal", True)
    return make_problem(fields["torus"], nodes=fields.get("nodes"), subset=fields.get("subset"),
                        rules=fields.get("rules", "angara"), minimal=minimal,
                        objective=fields.get("objective", "max_load"))


def routing_instance_id(fields: dict[str, Any]) -> str:
    """Stable id of a routing instance, e.g. ``torus:4x2x2x2/all`` or ``torus:4x2x2x2/desmos8``.

    Explicit node lists are written compactly (``torus:4x4/nodes:0-3,8``);
    non-default rules, minimality or objective are appended as ``;key=value``.
    """
    p = routing_problem(fields)
    if p.subset is not None:
        label = p.subset
    else:
        label = f"nodes:{_compact(p.nodes)}"
    out = f"torus:{p.network.spec}/{label}"
    for key, default in (("rules", "angara"), ("minimal", True), ("objective", "max_load")):
        value = getattr(p, key)
        if value != default:
            out += f";{key}={str(value).lower() if isinstance(value, bool) else value}"
    return out


def sample_problems() -> list[RoutingProblem]:
    """Small problems for the solver conformance tests: a ring, a 2D torus, a 3D torus with a
    size-2 (mesh) dimension, a node subset, and a 4D torus."""
    return [
        make_problem("5"),
        make_problem("4x3"),
        make_problem("3x2x4"),
        make_problem("4x2x2x2", subset="desmos8"),
        make_problem("3x3x2x2"),
    ]


# --------------------------------------------------------------------------- verification


#: metrics every routing-table document must store (and match)
REQUIRED_METRICS = ("objective", "max_load", "sigma4")


def verify_routes(doc: dict[str, Any]) -> Verdict:
    """Re-verify a ``hopbench.routes/1`` document from scratch: validity, then every stored metric."""
    stored: dict[str, float] = {}
    try:
        table, stored = table_from_dict(doc)
        ev = table.evaluate()
    except InvalidSolution as exc:
        return Verdict(False, f"invalid routing table: {exc}", stored=stored)
    metrics = ev.metrics()
    missing = [key for key in REQUIRED_METRICS if key not in stored]
    if missing:
        return Verdict(False, f"the document stores no {', '.join(missing)}; a result file must carry the metrics "
                              f"it claims", metrics, stored)
    for key, value in stored.items():
        if key not in metrics:
            continue
        if not close_enough(float(metrics[key]), float(value)):
            return Verdict(False, f"stored {key} {value!r} does not match the recomputed {metrics[key]!r}",
                           metrics, stored)
    return Verdict(True, "", metrics, stored)


register_verifier(ROUTES_FORMAT, verify_routes)
