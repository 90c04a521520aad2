"""The ``hostswitch`` problem kind: Graph Golf's host-switch category.

Suite instance tables name ``hosts`` and ``radix`` (integers), and optionally ``switches`` (a fixed
switch count; left out, the solver chooses it), ``objective`` (``h_golf``, the default, or
``h_aspl``) and ``group``.  Instance ids are ``h{hosts}/r{radix}``, with ``/m{switches}`` and a
non-default objective appended.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

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

FORMAT = "hopbench.hostswitch/1"
FIELD_TYPES = {"hosts": int, "radix": int, "switches": int, "objective": str, "group": str}
LOWER_BOUND = "lower bound"
BEST_KNOWN = "best known"
LEGEND = ("*k-K*, *l-L*: Graph Golf's gaps, our mean h-diameter k and mean h-ASPL l minus the lower bound's "
          "h-diameter K and h-ASPL L (Yasudo et al. 2019); *b.k.*: the same to the suite's \"best known\" row. "
          "An h-ASPL gap compares like with like only where the h-diameters agree.")


def _problem(hosts: int, radix: int, switches: int | None = None, objective: str = "h_golf"):
    from hopbench.harness.problems.hostswitch.problem import HostSwitchProblem

    return HostSwitchProblem(hosts, radix, switches, objective)


class HostSwitchKind(ProblemKind):
    name = "hostswitch"
    objectives = ("h_golf", "h_aspl")
    formats = (FORMAT,)
    instance_keys = frozenset({"hosts", "radix", "switches", "objective", "group"})
    metric_columns = (
        MetricColumn("h_diameter", "h-Diam."), MetricColumn("h_aspl", "h-ASPL", digits=5),
        MetricColumn("switches", "Switches", digits=1),
        MetricColumn("h_diameter", "k-K", minus=LOWER_BOUND, legend=LEGEND),
        MetricColumn("h_aspl", "l-L", minus=LOWER_BOUND, digits=5, legend=LEGEND),
        MetricColumn("h_diameter", "k-K b.k.", minus=BEST_KNOWN, legend=LEGEND),
        MetricColumn("h_aspl", "l-L b.k.", minus=BEST_KNOWN, digits=5, legend=LEGEND),
    )
    reference_metrics = ("h_diameter", "h_aspl", "switches")
    bound_labels = frozenset({LOWER_BOUND})
    size_label = "hosts"
    lower_bound_meaning = "Yasudo et al.'s h-diameter / h-ASPL bounds for (hosts, radix) through the objective"

    # ------------------------------------------------------------------ suites

    def check_fields(self, fields: dict[str, Any], resolver: InstanceResolver) -> None:
        check_field_types(fields, FIELD_TYPES)
        for key in ("hosts", "radix"):
            if key not in fields:
                raise HopbenchError(f"a hostswitch instance needs {key!r}, e.g. hosts = 1024, radix = 10")
        self.build(fields)

    def instance_id(self, fields: dict[str, Any]) -> str:
        out = f"h{fields['hosts']}/r{fields['radix']}"
        if fields.get("switches") is not None:
            out += f"/m{fields['switches']}"
        if fields.get("objective", "h_golf") != "h_golf":
            out += f"/{fields['objective']}"
        return out

    def build(self, fields: dict[str, Any]):
        return _problem(fields["hosts"], fields["radix"], fields.get("switches"), fields.get("objective", "h_golf"))

    def size(self, fields: dict[str, Any]) -> int:
        return int(fields["hosts"])

    # ------------------------------------------------------------------ solvers

    def sample_problems(self) -> list[Any]:
        """A pair one switch holds, two small free pairs (radix 3 and 4: long paths), a fixed switch count,
        the h-ASPL objective, and a pair of several hundred hosts."""
        return [_problem(5, 6), _problem(16, 3), _problem(32, 4), _problem(40, 6, switches=16),
                _problem(24, 5, objective="h_aspl"), _problem(300, 12)]

    def warm_up_problems(self) -> list[Any]:
        return [_problem(16, 3), _problem(24, 5, objective="h_aspl")]

    # ------------------------------------------------------------------ results

    def verify(self, doc: dict[str, Any]) -> Verdict:
        from hopbench.harness.problems.hostswitch.solution import REQUIRED_METRICS, graph_from_dict

        graph, stored = graph_from_dict(doc)
        try:
            ev = graph.evaluate()
        except InvalidSolution as exc:
            return Verdict(False, f"invalid host-switch graph: {exc}", stored=stored)
        metrics = ev.metrics()
        missing = [k for k in REQUIRED_METRICS if k not in stored]
        if missing:
            return Verdict(False, f"the document stores no {', '.join(missing)}; a result file must carry the "
                                  f"metrics it claims", metrics, stored)
        for key, value in stored.items():
            if key in metrics and not close_enough(float(metrics[key]), float(value)):
                return Verdict(False, f"stored {key} {value!r} does not match the recomputed {metrics[key]!r}",
                               metrics, stored)
        return Verdict(True, "", metrics, stored)

    def read(self, doc: dict[str, Any]) -> Any:
        from hopbench.harness.problems.hostswitch.solution import graph_from_dict

        return graph_from_dict(doc)[0]

    def graph_of(self, doc: dict[str, Any]) -> ResultNetwork:
        # the switches are the routers; their hosts are the endpoints (``hosts``), the radix is the ports
        from hopbench.harness.graphs.graph import Graph
        from hopbench.harness.problems.hostswitch.solution import graph_from_dict

        graph, _ = graph_from_dict(doc)
        problem = graph.problem
        problem.check(graph.host_counts, graph.links)
        return ResultNetwork(Graph(graph.switches, graph.links), radix=problem.radix, problem=problem.describe(),
                             hosts=graph.host_counts.copy())

    # ------------------------------------------------------------------ boards

    def shape(self, fields: dict[str, Any], problem: Any) -> InstanceShape:
        group = str(fields.get("group") or "host-switch")
        return InstanceShape(n=int(problem.hosts), group=group, family="host-switch",
                             series=f"host-switch, {problem.objective}")

    def primary_metric(self, objective: str) -> str:
        return "h_aspl" if objective == "h_aspl" else "objective"

    def metric_is_objective(self, metric: str, objective: str) -> bool:
        return metric == "objective" or (metric == "h_aspl" and objective == "h_aspl")

    def reference_points(self, problem: Any, references: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
        # K and L are always known: Yasudo et al.'s bounds, whatever rows the suite gives
        out = super().reference_points(problem, references)
        d, a = problem.lower_bounds()
        out[LOWER_BOUND] = {"h_diameter": float(d), "h_aspl": float(a), **out.get(LOWER_BOUND, {})}
        return out

    def reference_objective(self, values: dict[str, float], objective: str) -> float | None:
        from hopbench.harness.problems.hostswitch.problem import golf_value

        if objective == "h_aspl":
            return values.get("h_aspl")
        if "h_diameter" in values and "h_aspl" in values:
            return golf_value(values["h_diameter"], values["h_aspl"])
        return None


KIND = HostSwitchKind()
