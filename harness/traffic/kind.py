"""The ``traffic`` problem kind: a network's saturation throughput and latency, measured by simulation.

A suite instance table names ``network`` (a topology spec such as ``"torus:8x8"``, or a result or
edge file) and optionally ``traffic`` (a pattern of :mod:`hopbench.harness.traffic.patterns`, default
``uniform``), ``routing`` (default ``adaptive-updown``), ``endpoints`` (hosts per switch, or
``"free"``), ``router`` (a table of router parameters by BookSim's names, e.g.
``{num_vcs = 2, packet_size = 4}``), ``faults`` (% of links removed), ``structure_seed`` (draws the
failed links and a random permutation), ``load`` (the offered load whose latency the board shows),
``zero_load_packets`` (the zero-load measurement's sample, default 20,000) and ``group``.  Instance ids read ``{network}/{traffic}/{routing}`` with every other non-default
field appended as ``;key=value`` (router parameters by name).

The objective ``saturation`` (flits/cycle/host) is maximised.  Its solvers are simulators
(``simulator``, hopbench's own); a run records every simulated load point, and ``hopbench verify``
simulates the run again from its seed and parameters and compares every number.
"""
from __future__ import annotations

import math
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
from hopbench.harness.traffic.problem import OBJECTIVES, TRAFFIC_FORMAT, is_spec

FIELD_TYPES = {"network": str, "traffic": str, "routing": str, "endpoints": (int, str), "router": dict,
               "faults": float, "structure_seed": int, "load": float, "zero_load_packets": int, "objective": str,
               "group": str}
#: fields left out of an instance id when they have these values
DEFAULTS = {"endpoints": "1", "faults": 0.0, "structure_seed": 1, "zero_load_packets": 20_000,
            "objective": "saturation"}
#: numbers a re-run must reproduce exactly (to the stored digits) in every load point
POINT_KEYS = ("offered", "injected", "accepted", "latency_mean", "latency_median", "latency_p99", "hops",
              "packets", "cycles", "saturated", "status")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def traffic_instance_id(fields: dict[str, Any]) -> str:
    """``torus:8x8/uniform/dor;num_vcs=2;packet_size=4``: network, pattern, routing, then what differs
    from the defaults (router parameters by name, then endpoints, faults, seed, load, objective).

    >>> traffic_instance_id({"network": "ring:16", "traffic": "bitrev", "routing": "updown", "faults": 5})
    'ring:16/bitrev/updown;faults=5'
    """
    from hopbench.harness.traffic.problem import problem_from_fields

    p = problem_from_fields(fields)
    out = f"{p.network}/{p.traffic}/{p.routing}"
    for key, value in p.router.items():
        out += f";{key}={_text(value)}"
    for key in ("endpoints", "faults", "structure_seed", "load", "zero_load_packets", "objective"):
        value = getattr(p, key)
        if value is not None and value != DEFAULTS.get(key):
            out += f";{key}={_text(value)}"
    return out


def _compare_points(kind: str, stored: list[dict[str, Any]], again: list[dict[str, Any]]) -> str:
    """Why two lists of load points differ (empty when they agree)."""
    if len(stored) != len(again):
        return f"{kind}: the document has {len(stored)} load points, the re-run {len(again)}"
    for i, (a, b) in enumerate(zip(stored, again)):
        # escape_share came later: a document that states it must have it right, an older one does not claim it
        for key in POINT_KEYS + (("escape_share",) if "escape_share" in a else ()):
            x, y = a.get(key), b.get(key)
            if isinstance(x, bool) or isinstance(y, bool) or isinstance(x, str) or x is None or y is None:
                same = x == y
            else:
                same = close_enough(float(x), float(y))
            if not same:
                return f"{kind} point {i + 1}: stored {key} {x!r}, the re-run gives {y!r}"
    return ""


def verify_traffic(doc: dict[str, Any], *, rerun: bool = True) -> Verdict:
    """Re-verify a ``hopbench.traffic/1`` document: its metrics from its points, then (``rerun``) its
    points by simulating the run again with the same seed and parameters."""
    from hopbench.harness.traffic.measure import rerun as simulate_again
    from hopbench.harness.traffic.problem import result_from_dict

    stored = doc.get("metrics") if isinstance(doc.get("metrics"), dict) else {}
    try:
        result = result_from_dict(doc)
    except InvalidSolution as exc:
        return Verdict(False, f"invalid traffic result: {exc}", stored=stored)
    metrics = result.evaluation.metrics()
    for key in sorted(set(stored) - set(metrics)):
        if stored[key] is not None:
            return Verdict(False, f"the document stores {key} {stored[key]!r}, which its points do not give",
                           metrics, stored)
    for key, value in metrics.items():
        if key not in stored:
            return Verdict(False, f"the document stores no {key}; a result file must carry the metrics it claims",
                           metrics, stored)
        s = stored[key]
        if isinstance(value, list):  # the curve: every number as derived
            same = isinstance(s, list) and len(s) == len(value) and all(
                isinstance(a, list) and len(a) == len(b) and all(
                    isinstance(x, (int, float)) and close_enough(float(x), y) for x, y in zip(a, b))
                for a, b in zip(s, value))
        else:
            same = isinstance(s, (int, float)) and not isinstance(s, bool) and close_enough(float(s), float(value))
        if not same:
            return Verdict(False, f"stored {key} {s!r} does not match {value!r}, derived from the document's points",
                           metrics, stored)
    if rerun:
        again = simulate_again(doc)
        for kind, a, b in (("zero-load", [result.zero_load], [again.zero_load]),
                           ("saturation search", result.saturation_points, again.saturation_points),
                           ("curve", result.curve, again.curve),
                           ("stated load", [result.at_load] if result.at_load else [],
                            [again.at_load] if again.at_load else [])):
            why = _compare_points(kind, a, b)
            if why:
                return Verdict(False, f"the simulation does not reproduce: {why}", metrics, stored)
        for key in ("lp_bound", "routing_bound"):
            x, y = getattr(result, key), getattr(again, key)
            if (x is None) != (y is None) or (x is not None and not close_enough(float(x), float(y))):
                # an LP's optimum is reproducible to the solver's tolerance, not to the last digit
                if x is None or y is None or abs(float(x) - float(y)) > 1e-6 * max(1.0, abs(float(y))):
                    return Verdict(False, f"stored {key} {x!r}, recomputed {y!r}", metrics, stored)
    return Verdict(True, "", metrics, stored)


class TrafficKind(ProblemKind):
    name = "traffic"
    objectives = OBJECTIVES
    maximised = frozenset(OBJECTIVES)
    anytime = False
    formats = (TRAFFIC_FORMAT,)
    instance_keys = frozenset(FIELD_TYPES)
    metric_columns = (
        MetricColumn("zero_load_latency", "Zero-load latency", digits=2,
                     legend="Zero-load latency: mean packet latency at 1 % load, cycles."),
        MetricColumn("latency_at_load", "Latency @ load", digits=2,
                     legend="Latency @ load: mean packet latency at the instance's stated offered load, cycles "
                            "(blank when it saturates there)."),
        MetricColumn("lp_bound", "LP bound", digits=4,
                     legend="LP bound: the most any routing could carry (maximum concurrent flow over all paths, "
                            "capped by the busiest ejection link), flits/cycle/host."),
        MetricColumn("lp_gap", "Gap to LP", digits=3,
                     legend="Gap to LP: (LP bound - saturation) / LP bound."),
    )
    reference_metrics = ("saturation", "zero_load_latency", "latency_at_load")
    size_label = "switches"

    def resolve_fields(self, fields: dict[str, Any], resolver: InstanceResolver) -> dict[str, Any]:
        # a network file is named relative to the suite file's folder or the folder above it (a shipped
        # suite's names then read from the project root, where 'hopbench verify' finds them too); the
        # id keeps the name as written.  A spec such as torus:8x8 is no file
        out = dict(fields)
        network = out.get("network")
        directory = getattr(resolver, "directory", None)
        if isinstance(network, str) and directory is not None and not is_spec(network):
            from pathlib import Path

            for folder in (Path(directory), Path(directory).parent):
                if (folder / network).is_file():
                    out["network_path"] = str((folder / network).resolve())
                    break
        return out

    def check_fields(self, fields: dict[str, Any], resolver: InstanceResolver) -> None:
        check_field_types(fields, FIELD_TYPES)
        if "network" not in fields:
            raise HopbenchError("a traffic instance needs a 'network' key, e.g. network = \"torus:8x8\"")
        from hopbench.harness.traffic.patterns import PATTERNS
        from hopbench.harness.traffic.study import ROUTINGS

        if fields.get("traffic", "uniform") not in PATTERNS:
            raise HopbenchError(f"traffic {fields['traffic']!r} is not a pattern; use one of {', '.join(PATTERNS)}")
        if fields.get("routing", "adaptive-updown") not in ROUTINGS:
            raise HopbenchError(f"routing {fields['routing']!r} is not a simulation routing; use one of "
                                f"{', '.join(ROUTINGS)}")
        endpoints = fields.get("endpoints", 1)
        if isinstance(endpoints, str) and endpoints not in ("free", "hosts") or isinstance(endpoints, int) and \
                not 1 <= endpoints <= 1024:
            raise HopbenchError(f"endpoints is a host count per switch (1..1024), \"free\" or \"hosts\" (a host-switch "
                                f"result's own hosts); got {endpoints!r}")
        # the router table, faults and load are checked by the problem itself; hosts and pattern here
        self.build(fields).check_light()

    def instance_id(self, fields: dict[str, Any]) -> str:
        return traffic_instance_id(fields)

    def build(self, fields: dict[str, Any]):
        from hopbench.harness.traffic.problem import problem_from_fields

        return problem_from_fields(fields)

    def size(self, fields: dict[str, Any]) -> int:
        return self.build(fields).switches

    def sample_problems(self) -> list[Any]:
        """Tiny networks, short measurement periods: a ring under adaptive up*/down*, a torus under
        DOR under bit-reversal with 2-flit packets and 2 VCs, and a faulty mesh under up*/down* with a stated load."""
        from hopbench.harness.traffic.problem import TrafficProblem

        quick = {"warmup_periods": 1, "sample_period": 50, "max_samples": 4}
        return [TrafficProblem(network="ring:5", routing="adaptive-updown", router=dict(quick, num_vcs=2),
                               zero_load_packets=300),
                TrafficProblem(network="torus:4x2", routing="dor", traffic="bitrev", zero_load_packets=300,
                               router=dict(quick, num_vcs=2, packet_size=2)),
                TrafficProblem(network="mesh:3x3", routing="updown", faults=10, load=0.1, zero_load_packets=300,
                               router=dict(quick, num_vcs=1))]

    def warm_up_problems(self) -> list[Any]:
        return self.sample_problems()[:1]

    def verify(self, doc: dict[str, Any]) -> Verdict:
        return verify_traffic(doc)

    def check_result(self, problem: Any, doc: dict[str, Any], *, trusted: bool = False) -> Verdict:
        # the coordinator's check of every run: the very problem asked, metrics that follow from the recorded
        # points (the bisection replayed) and, for a solver hopbench does not ship, the points themselves,
        # simulated again.  The shipped simulator's points would only be its own deterministic run repeated
        # (twice the cost for the same numbers); 'hopbench verify' does that on any file a board links
        from hopbench.harness.problems.recheck import problem_mismatch

        claimed = doc.get("problem") if isinstance(doc.get("problem"), dict) else {}
        reason = problem_mismatch(problem.describe(), claimed)
        return verify_traffic(doc, rerun=not trusted) if reason is None else Verdict(False, reason)

    def graph_of(self, doc: dict[str, Any]) -> ResultNetwork:
        from hopbench.harness.traffic.problem import problem_from_fields

        problem = doc.get("problem")
        if not isinstance(problem, dict):
            raise InvalidSolution(f"a {TRAFFIC_FORMAT} document needs its 'problem'")
        p = problem_from_fields(problem)
        sim, _ = p.prepared()
        return ResultNetwork(sim.graph, problem=p.describe())

    def shape(self, fields: dict[str, Any], problem: Any) -> InstanceShape:
        family = str(problem.network).split(":", 1)[0]
        group = str(fields.get("group") or family)
        return InstanceShape(n=int(problem.switches), group=group, family=group,
                             series=f"{group}, {problem.traffic}")

    def plots(self) -> dict[str, Any]:
        from hopbench.harness.traffic.board_plots import latency_curves_figure

        return {"latency": latency_curves_figure}

    def lower_bound(self, problem: Any) -> float | None:
        return None  # a maximised objective; its bound (the LP) is a per-run metric

    def primary_metric(self, objective: str) -> str:
        return objective

    def reference_objective(self, values: dict[str, float], objective: str) -> float | None:
        v = values.get(objective)
        return None if v is None or not math.isfinite(float(v)) else float(v)


KIND = TrafficKind()
