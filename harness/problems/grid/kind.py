"""The ``grid`` problem kind: Graph Golf's grid graphs (vertices on a W x H grid, edges of Manhattan
length <= ``length``, degree <= ``degree``; diameter, then ASPL).

Suite instance tables give ``width``, ``height``, ``degree`` and ``length`` (integers), and optionally
``objective`` (``grid-golf``, the only one) and ``group``.  Instance ids read ``grid:{W}x{H}/d{degree}/r{length}``.
Boards show the diameter and ASPL and Graph Golf's gaps k - K and l - L to the grid bound (the suite's
"lower bound" row, else the bound hopbench computes) and to a "best known" row.
"""
from __future__ import annotations

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
from hopbench.harness.problems.grid.problem import GRID_FORMAT, OBJECTIVES

FIELD_TYPES = {"width": int, "height": int, "degree": int, "length": int, "objective": str, "group": str}
REQUIRED = ("width", "height", "degree", "length")
LOWER_BOUND = "lower bound"
BEST_KNOWN = "best known"
GOLF_LEGEND = (
    "*k-K*, *l-L*: Graph Golf's diameter and ASPL gaps, our mean diameter k and mean ASPL l minus the grid bound's "
    "diameter K and ASPL L (the 2019-07-29 grid bound); *k-K b.k.*, *l-L b.k.*: the same to the suite's \"best "
    "known\" row. An ASPL gap compares like with like only where the diameters agree (k = K).")


def grid_instance_id(fields: Mapping[str, Any]) -> str:
    """``grid:10x10/d6/r3`` (plus ``/{objective}`` for another objective than grid-golf)."""
    tail = "" if fields.get("objective", "grid-golf") == "grid-golf" else f"/{fields['objective']}"
    return f"grid:{fields['width']}x{fields['height']}/d{fields['degree']}/r{fields['length']}{tail}"


class GridKind(ProblemKind):
    name = "grid"
    objectives = OBJECTIVES
    formats = (GRID_FORMAT,)
    instance_keys = frozenset(FIELD_TYPES)
    metric_columns = (
        MetricColumn("diameter", "Diam."), MetricColumn("aspl", "ASPL"),
        MetricColumn("diameter", "k-K", minus=LOWER_BOUND, legend=GOLF_LEGEND),
        MetricColumn("aspl", "l-L", minus=LOWER_BOUND, digits=5, legend=GOLF_LEGEND),
        MetricColumn("diameter", "k-K b.k.", minus=BEST_KNOWN, legend=GOLF_LEGEND),
        MetricColumn("aspl", "l-L b.k.", minus=BEST_KNOWN, digits=5, legend=GOLF_LEGEND),
    )
    reference_metrics = ("diameter", "aspl")
    bound_labels = frozenset({LOWER_BOUND})
    size_label = "N (cells)"
    lower_bound_meaning = "the 2019-07-29 grid bound on the diameter and ASPL through the objective"

    # ------------------------------------------------------------------ suites

    def check_fields(self, fields: dict[str, Any], resolver: InstanceResolver) -> None:
        check_field_types(fields, FIELD_TYPES)
        missing = [k for k in REQUIRED if k not in fields]
        if missing:
            raise HopbenchError(f"missing key {missing[0]!r}; a grid instance needs width, height, degree and length, "
                                f"e.g. width = 10, height = 10, degree = 6, length = 3")
        self.build(fields)

    def instance_id(self, fields: dict[str, Any]) -> str:
        return grid_instance_id(fields)

    def build(self, fields: dict[str, Any]):
        from hopbench.harness.problems.grid.problem import GridProblem

        return GridProblem(fields["width"], fields["height"], fields["degree"], fields["length"],
                           fields.get("objective", "grid-golf"))

    def size(self, fields: dict[str, Any]) -> int:
        return int(fields["width"]) * int(fields["height"])

    # ------------------------------------------------------------------ solvers

    def sample_problems(self) -> list[Any]:
        """A regular square grid (4 x 4, degree 3, length 2), a square with a centre cell (5 x 5, degree 4:
        fixed by every rotation), a non-square one with unit cables (6 x 4, degree 3, length 1: the mesh's
        own links only) and one whose port count is odd (5 x 3, degree 3, length 2)."""
        from hopbench.harness.problems.grid.problem import GridProblem

        return [GridProblem(4, 4, 3, 2), GridProblem(5, 5, 4, 2), GridProblem(6, 4, 3, 1), GridProblem(5, 3, 3, 2)]

    def warm_up_problems(self) -> list[Any]:
        return self.sample_problems()[:2]

    # ------------------------------------------------------------------ results

    def verify(self, doc: dict[str, Any]) -> Verdict:
        from hopbench.harness.problems.grid.document import solution_from_dict

        solution, stored = solution_from_dict(doc)
        try:
            ev = solution.evaluate()
        except InvalidSolution as exc:
            return Verdict(False, f"invalid grid graph: {exc}", stored=stored)
        metrics = ev.metrics()
        for key in ("diameter", "aspl", "objective"):
            if not close_enough(metrics[key], stored[key]):
                return Verdict(False, f"stored {key} {stored[key]!r} does not match the recomputed {metrics[key]!r}",
                               metrics, stored)
        return Verdict(True, "", metrics, stored)

    def read(self, doc: dict[str, Any]) -> Any:
        from hopbench.harness.problems.grid.document import solution_from_dict

        return solution_from_dict(doc)[0]

    def check_result(self, problem: Any, doc: dict[str, Any], *, trusted: bool = False) -> Verdict:
        from hopbench.harness.problems.grid.document import problem_from_dict
        from hopbench.harness.problems.recheck import problem_mismatch

        reason = problem_mismatch(problem.describe(), problem_from_dict(doc).describe())
        return self.verify(doc) if reason is None else Verdict(False, reason)

    def graph_of(self, doc: dict[str, Any]) -> ResultNetwork:
        from hopbench.harness.graphs.graph import Graph
        from hopbench.harness.problems.grid.document import solution_from_dict

        solution, _ = solution_from_dict(doc)
        problem = solution.problem
        edges = problem.validate(solution.edges)
        return ResultNetwork(Graph(problem.n, edges), radix=int(problem.degree), problem=problem.describe())

    def lower_bound(self, problem: Any) -> float | None:
        return problem.objective_lower_bound()

    # ------------------------------------------------------------------ boards

    def shape(self, fields: dict[str, Any], problem: Any) -> InstanceShape:
        group = str(fields.get("group") or f"grid, degree {problem.degree}, length {problem.length}")
        return InstanceShape(n=int(problem.n), group=group, family="grid", series=group)

    def metric_is_objective(self, metric: str, objective: str) -> bool:
        return metric == "objective"

    def reference_points(self, problem: Any, references: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
        # K and L: the suite's "lower bound" row, else the grid bound hopbench computes
        import math

        out = super().reference_points(problem, references)
        computed = dict(zip(("diameter", "aspl"), (float(v) for v in problem.lower_bounds())))
        out[LOWER_BOUND] = {**{k: v for k, v in computed.items() if math.isfinite(v)}, **out.get(LOWER_BOUND, {})}
        return out

    def reference_objective(self, values: dict[str, float], objective: str) -> float | None:
        from hopbench.harness.problems.grid.problem import golf_value

        if "diameter" in values and "aspl" in values:
            return golf_value(values["diameter"], values["aspl"])
        return None


KIND = GridKind()
