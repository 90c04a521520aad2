"""A toy problem kind and a solver for it, defined entirely in tests/.

``subset``: pick at most ``budget`` of the items 1..``items`` whose sum comes as close
as possible to ``target``; the objective is ``|sum - target|``.  It plugs into hopbench
the way any third-party kind would: loaded through ``HOPBENCH_KIND_MODULES`` (and its
solver through ``HOPBENCH_SOLVER_MODULES``), it goes through suites, the runner, the
store, the board and the site without a line of hopbench changing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hopbench.harness.errors import HopbenchError, InvalidSolution
from hopbench.harness.problems.kind import InstanceShape, MetricColumn, ProblemKind, Verdict, close_enough
from hopbench.harness.problems.registry import register_kind
from hopbench.solvers.contract import Solver, register

FORMAT = "toy.subset/1"


@dataclass(frozen=True)
class SubsetProblem:
    items: int
    budget: int
    target: int
    kind = "subset"
    objective = "distance"

    def objective_lower_bound(self) -> float:
        return 0.0

    def describe(self) -> dict[str, Any]:
        return {"items": self.items, "budget": self.budget, "target": self.target}


@dataclass(frozen=True)
class SubsetEvaluation:
    objective: float
    total: int
    picked: int

    def metrics(self) -> dict[str, float]:
        return {"objective": self.objective, "total": self.total, "picked": self.picked}


@dataclass
class SubsetSolution:
    problem: SubsetProblem
    chosen: list[int]
    solver: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    elapsed_s: float = 0.0
    evaluation: SubsetEvaluation | None = None

    def evaluate(self) -> SubsetEvaluation:
        p = self.problem
        if len(self.chosen) > p.budget:
            raise InvalidSolution(f"{len(self.chosen)} items picked, budget is {p.budget}")
        if len(set(self.chosen)) != len(self.chosen) or any(not 1 <= c <= p.items for c in self.chosen):
            raise InvalidSolution(f"items must be distinct numbers in 1..{p.items}")
        total = sum(self.chosen)
        self.evaluation = SubsetEvaluation(float(abs(total - p.target)), total, len(self.chosen))
        return self.evaluation

    def to_dict(self) -> dict[str, Any]:
        ev = self.evaluation or self.evaluate()
        return {"format": FORMAT, "problem": self.problem.describe(), "chosen": list(self.chosen),
                "solver": {"name": self.solver, "params": self.params}, "seed": self.seed, "metrics": ev.metrics()}


class SubsetKind(ProblemKind):
    name = "subset"
    objectives = ("distance",)
    formats = (FORMAT,)
    instance_keys = frozenset({"items", "budget", "target", "group"})
    metric_columns = (MetricColumn("total", "Sum"),)
    reference_metrics = ("total",)
    size_label = "items"

    def instance_id(self, fields: dict[str, Any]) -> str:
        return f"subset:{fields['items']}/b{fields['budget']}/t{fields['target']}"

    def build(self, fields: dict[str, Any]) -> SubsetProblem:
        try:
            return SubsetProblem(int(fields["items"]), int(fields["budget"]), int(fields["target"]))
        except KeyError as exc:
            raise HopbenchError(f"a subset instance needs {exc.args[0]!r}") from None

    def size(self, fields: dict[str, Any]) -> int:
        return int(fields["items"])

    def sample_problems(self) -> list[Any]:
        return [SubsetProblem(10, 3, 20), SubsetProblem(30, 5, 101)]

    def verify(self, doc: dict[str, Any]) -> Verdict:
        solution = SubsetSolution(SubsetKind().build(doc["problem"]), list(doc["chosen"]))
        try:
            ev = solution.evaluate()
        except InvalidSolution as exc:
            return Verdict(False, f"invalid: {exc}")
        stored = doc.get("metrics", {})
        ok = close_enough(ev.objective, float(stored.get("objective", -1)))
        return Verdict(ok, "" if ok else "stored objective does not match", ev.metrics(), stored)

    def shape(self, fields: dict[str, Any], problem: Any) -> InstanceShape:
        return InstanceShape(n=problem.items, group=str(fields.get("group") or "subsets"), family="subset",
                             series="subsets")

    def plots(self):
        return {"sums": _sums_figure}


def _sums_figure(board):
    """The mean sum each row reached (a figure only this kind draws)."""
    from matplotlib.figure import Figure

    rows = board.rows[board.rows["runs"] > 0]
    fig = Figure(figsize=(4, 3))
    ax = fig.subplots()
    ax.bar(range(len(rows)), rows["mean_total"].astype(float))
    ax.set_title("mean sum per row")
    return fig


register_kind(SubsetKind())


@register
class GreedySubset(Solver):
    name = "toy-greedy-subset"
    kinds = ("subset",)
    description = "largest items first while they fit under the target (a toy)"

    def solve(self, problem, *, seed, budget, report):
        chosen: list[int] = []
        for item in range(problem.items, 0, -1):
            if len(chosen) < problem.budget and sum(chosen) + item <= problem.target:
                chosen.append(item)
                report.count(1)
        solution = SubsetSolution(problem, chosen)
        report(solution.evaluate().objective)
        return solution
