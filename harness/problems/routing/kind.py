"""The ``routing`` problem kind: a deadlock-free routing table for a torus (Angara rules).

Suite instance tables name ``torus`` (e.g. ``"4x2x2x2"``) and optionally ``nodes``
(a node list) or ``subset`` (a named subset), ``rules``, ``minimal``, ``objective``
and ``group``.  Instance ids are ``torus:{dims}/{subset}`` or
``torus:{dims}/nodes:{compact list}``, with non-default rules, minimality or
objective appended as ``;key=value``.
"""
from __future__ import annotations

from typing import Any

from hopbench.harness.errors import HopbenchError, InvalidSolution
from hopbench.harness.problems.kind import (
    InstanceResolver,
    InstanceShape,
    MetricColumn,
    ProblemKind,
    ResultNetwork,
    Verdict,
    check_field_types,
    close_enough,
)

ROUTES_FORMAT = "hopbench.routes/1"
#: the types of a routing instance's fields (a torus or a node list may be written either way)
FIELD_TYPES = {"torus": (str, list), "nodes": (str, list), "subset": str, "rules": str, "minimal": bool,
               "objective": str, "group": str}
#: metrics every routing-table document must store (and match)
REQUIRED_METRICS = ("objective", "max_load", "sigma4")


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


def routing_problem(fields: dict[str, Any]):
    """The problem of a suite instance table (keys ``torus``, optional ``nodes`` or ``subset``,
    ``rules``, ``minimal``, ``objective``; other keys such as ``reference`` are ignored)."""
    from hopbench.harness.problems.routing.problem import make_problem

    if "torus" not in fields:
        raise HopbenchError("a routing instance needs a 'torus' key, e.g. torus = \"4x2x2x2\"")
    return make_problem(fields["torus"], nodes=fields.get("nodes"), subset=fields.get("subset"),
                        rules=fields.get("rules", "angara"), minimal=fields.get("minimal", True),
                        objective=fields.get("objective", "max_load"))


def routing_instance_id(fields: dict[str, Any]) -> str:
    """Stable id of a routing instance, e.g. ``torus:4x2x2x2/all`` or ``torus:4x2x2x2/desmos8``.

    >>> routing_instance_id({"torus": "4x2x2x2", "subset": "desmos8"})
    'torus:4x2x2x2/desmos8'
    """
    p = routing_problem(fields)
    label = p.subset if p.subset is not None else f"nodes:{_compact(p.nodes)}"
    out = f"torus:{p.network.spec}/{label}"
    for key, default in (("rules", "angara"), ("minimal", True), ("objective", "max_load")):
        value = getattr(p, key)
        if value != default:
            out += f";{key}={str(value).lower() if isinstance(value, bool) else value}"
    return out


def verify_routes(doc: dict[str, Any]) -> Verdict:
    """Re-verify a ``hopbench.routes/1`` document from scratch: validity, then every stored metric."""
    from hopbench.harness.problems.routing.table import table_from_dict

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


class RoutingKind(ProblemKind):
    name = "routing"
    objectives = ("max_load", "sigma4")
    formats = (ROUTES_FORMAT,)
    instance_keys = frozenset({"torus", "nodes", "subset", "rules", "minimal", "objective", "group"})
    metric_columns = (MetricColumn("max_load", "Max load"), MetricColumn("sigma4", "σ(4,R)"))
    reference_metrics = ("max_load", "min_load", "sigma4", "max_length")
    size_label = "routed nodes"
    lower_bound_meaning = "ceil(γ_perfect) on the max channel load of a routing table"

    def check_fields(self, fields: dict[str, Any], resolver: InstanceResolver) -> None:
        # types and names here; the problem itself is built (and checks the rest) for the instance id
        import re

        check_field_types(fields, FIELD_TYPES)
        if "torus" not in fields:
            raise HopbenchError("a routing instance needs a 'torus' key, e.g. torus = \"4x2x2x2\"")
        objective = fields.get("objective", "max_load")
        if objective not in self.objectives:
            raise HopbenchError(f"objective {objective!r} is not a routing objective; use one of "
                                f"{', '.join(self.objectives)}")
        nodes = fields.get("nodes")
        if isinstance(nodes, str):
            # a range such as "0-99999999999" would be listed in full before its end is checked: refuse
            # a number longer than any node id of a torus Angara routes
            from hopbench.harness.problems.routing.network import MAX_DIMS, MAX_SIZE

            digits = len(str(MAX_SIZE ** MAX_DIMS))
            big = next((m for m in re.findall(r"\d+", nodes) if len(m) > digits), None)
            if big is not None:
                raise HopbenchError(f"nodes: node {big if len(big) <= 20 else big[:17] + '...'} is out of range "
                                    f"of every torus Angara routes; give node ids 0..N-1")

    def instance_id(self, fields: dict[str, Any]) -> str:
        return routing_instance_id(fields)

    def build(self, fields: dict[str, Any]):
        return routing_problem(fields)

    def size(self, fields: dict[str, Any]) -> int:
        import math

        from hopbench.harness.problems.routing.network import parse_dims

        return math.prod(parse_dims(fields["torus"]))

    def sample_problems(self) -> list[Any]:
        """A ring, a 2D torus, a 3D torus with a size-2 (mesh) dimension, a node subset, and a 4D torus."""
        from hopbench.harness.problems.routing.problem import make_problem

        return [make_problem("5"), make_problem("4x3"), make_problem("3x2x4"),
                make_problem("4x2x2x2", subset="desmos8"), make_problem("3x3x2x2")]

    def warm_up_problems(self) -> list[Any]:
        return self.sample_problems()[:2]

    def verify(self, doc: dict[str, Any]) -> Verdict:
        return verify_routes(doc)

    def read(self, doc: dict[str, Any]) -> Any:
        from hopbench.harness.problems.routing.table import table_from_dict

        return table_from_dict(doc)[0]

    def check_result(self, problem: Any, doc: dict[str, Any], *, trusted: bool = False) -> Verdict:
        # the document's problem from its header (cheap) before its routes are verified
        from hopbench.harness.problems.recheck import problem_mismatch
        from hopbench.harness.problems.routing.table import problem_from_dict

        reason = problem_mismatch(problem.describe(), problem_from_dict(doc).describe())
        return self.verify(doc) if reason is None else Verdict(False, reason)

    def graph_of(self, doc: dict[str, Any]) -> ResultNetwork:
        # the whole torus, node ids as in the table (first dimension fastest); the radix is its port
        # count.  The routes need not be valid for the network to be: 'hopbench verify' checks them.
        import numpy as np

        from hopbench.harness.graphs.graph import Graph
        from hopbench.harness.problems.routing.table import table_from_dict

        table, _ = table_from_dict(doc)
        net = table.problem.network
        nb = net.neighbor
        u = np.repeat(np.arange(net.num_nodes, dtype=np.int64), nb.shape[1])
        v = nb.ravel()
        keep = v >= 0
        graph = Graph(net.num_nodes, np.stack([u[keep], v[keep]], axis=1))
        return ResultNetwork(graph, radix=net.ndir, routes=table, problem=table.problem.describe())

    def shape(self, fields: dict[str, Any], problem: Any) -> InstanceShape:
        group = str(fields.get("group") or f"{problem.network.n}D")
        series = group if problem.objective == "max_load" else f"{group}, {problem.objective}"
        return InstanceShape(n=int(problem.num_nodes), group=group, family=group, series=series)

    def primary_metric(self, objective: str) -> str:
        return objective

    def reference_objective(self, values: dict[str, float], objective: str) -> float | None:
        # a paper that reports max load and sigma(4, R) gives the max_load objective too
        # (table.objective_value's formula: importing the table module would load numba, and suites call
        # this when they load, in commands that must stay light such as 'hopbench instances')
        if objective == "max_load" and "max_load" in values and "sigma4" in values:
            return float(values["max_load"]) + float(values["sigma4"]) / (1.0 + float(values["sigma4"]))
        return values.get("sigma4") if objective == "sigma4" else None

    def known_value_lower_bound(self, problem: Any) -> float | None:
        # The exact bound of a node subset under Angara rules counts the channels on its candidate
        # routes, which enumerates them with compiled kernels (numba): too heavy for loading a suite.
        # Its max load is also at least the total minimal route length over every channel of the
        # torus (the bound the problem gives non-minimal tables), which costs a distance matrix.
        if problem.objective == "max_load" and problem.rules == "angara" and not problem.all_nodes:
            return float(-(-problem.total_min_length // problem.network.num_channels))
        return self.lower_bound(problem)


KIND = RoutingKind()
