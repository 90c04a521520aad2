"""Angara routing on torus interconnects (Mukosey, Semenov, Tretiakov 2021).

The public API of the routing modules; the implementation is split by concept:

=============================  ==========================================================
:mod:`hopbench.harness.problems.routing.network`   tori, directions, channels, distances
:mod:`hopbench.harness.problems.routing.graph`     Angara rules, the routing graph (Sect. 3.1) and its
                                 deadlock-free extension by Theorem 2 (Sect. 3.2)
:mod:`hopbench.harness.problems.routing.candidates` every minimal legal route of every pair
:mod:`hopbench.harness.problems.routing.deadlock`  the channel-dependency-graph check of a table
:mod:`hopbench.harness.problems.routing.problem`   :class:`RoutingProblem` and the named node subsets
:mod:`hopbench.harness.problems.routing.table`     :class:`RoutingTable`: validation, metrics, JSON
=============================  ==========================================================

The kind plug-in (:mod:`hopbench.harness.problems.routing.kind`) connects routing to the rest of
hopbench: suite instances, sample problems, the ``hopbench.routes/1`` verifier and the
board's columns.

>>> make_problem("4x2x2x2", subset="desmos8").num_pairs
56
"""
from __future__ import annotations

import importlib

#: public name -> the module that defines it (imported on first use: the kernels load numba)
_EXPORTS = {
    "RoutingGraph": "graph", "routing_graph": "graph",
    "Torus": "network", "direction_name": "network", "format_dims": "network", "parse_dims": "network",
    "parse_direction": "network", "torus": "network",
    "OBJECTIVES": "problem", "RULES": "problem", "SUBSETS": "problem", "RoutingProblem": "problem",
    "make_problem": "problem", "parse_nodes": "problem", "subset_nodes": "problem",
    "METRIC_KEYS": "table", "ROUTES_FORMAT": "table", "RoutingEvaluation": "table", "RoutingTable": "table",
    "evaluate_loads": "table", "table_from_dict": "table",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
