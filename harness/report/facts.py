"""What a board knows about each instance besides its runs: group, size, bounds, optima, published values
and the reference points of the kind's difference columns.

The facts come from the suite file (or, for instances it no longer defines,
from the instance fields stored with the runs); everything kind-specific --
the instance's shape, its lower bound, the objective a paper's numbers imply
-- is asked of the problem kind's plug-in (:mod:`hopbench.harness.problems.registry`).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.registry import get_kind, is_maximised


@dataclass(frozen=True)
class InstanceFacts:
    """What the board needs to know about one instance besides the runs."""

    id: str
    kind: str
    group: str
    family: str
    n: int
    objective: str
    order: int
    series: str = ""
    lower_bound: float | None = None
    optimum: float | None = None
    best_known: float | None = None
    references: tuple[dict[str, Any], ...] = ()
    published_metric: str | None = None
    published_best: float | None = None
    #: the values the kind's difference columns subtract (:meth:`ProblemKind.reference_points`): name -> metric -> value
    reference_points: dict[str, dict[str, float]] = field(default_factory=dict)


def reference_values(ref: dict[str, Any], kind: str, objective: str) -> dict[str, float]:
    """The numeric metrics of a published reference row, plus its objective when it can be derived.

    The instance's kind says how (a paper that reports diameter and ASPL gives
    the ``golf`` and ``ad`` objectives too; one that reports max load and
    σ(4, R) gives the routing objective).  Non-numeric fields (source, label,
    notes) are left out.
    """
    out = {k: float(v) for k, v in ref.items()
           if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(float(v))}
    if "objective" not in out:
        derived = get_kind(kind).reference_objective(out, objective)
        if derived is not None:
            out["objective"] = float(derived)
    return out


def published_comparison(references: Iterable[dict[str, Any]], kind: str, objective: str
                         ) -> tuple[str | None, float | None]:
    """``(metric, best value)`` to compare our runs with, or ``(None, None)`` without references.

    Like is compared with like: the instance's primary metric first (ASPL for
    an ``aspl`` objective, max load for ``max_load``, the objective itself for
    ``golf`` / ``ad``), then the objective, then whatever the papers report.
    Rows that state a bound (the kind's ``bound_labels``) are no result to compare with.
    """
    spec = get_kind(kind)
    values = [reference_values(r, kind, objective) for r in references if r.get("label") not in spec.bound_labels]
    candidates = (spec.primary_metric(objective), "objective", *(c.metric for c in spec.metric_columns))
    for metric in dict.fromkeys(candidates):
        found = [v[metric] for v in values if metric in v]
        if found:
            # the best published value: the largest of a maximised objective, else the smallest
            best = max if metric in ("objective", objective) and is_maximised(objective) else min
            return metric, float(best(found))
    return None, None


def instance_facts(instance: Any, order: int) -> InstanceFacts:
    """Facts of a suite :class:`~hopbench.harness.bench.suites.Instance` (builds its problem for the bounds)."""
    kind = get_kind(instance.kind)
    problem = instance.problem()
    objective = problem.objective
    shape = kind.shape(instance.fields, problem)
    lower = kind.lower_bound(problem)
    lower = lower if lower is not None and math.isfinite(lower) else None
    metric, best = published_comparison(instance.references, instance.kind, objective)
    return InstanceFacts(id=instance.id, kind=instance.kind, group=shape.group, family=shape.family, n=shape.n,
                         objective=objective, order=order, series=shape.series, lower_bound=lower,
                         optimum=instance.optimum, best_known=instance.best_known,
                         references=tuple(instance.references), published_metric=metric, published_best=best,
                         reference_points=kind.reference_points(problem, tuple(instance.references)))


def suite_facts(suite: Any | None, suite_name: str, recorded: dict[str, tuple[str, str]]) -> dict[str, InstanceFacts]:
    """Facts of every instance that has runs: from the suite file when it still defines the
    instance, else rebuilt from the instance fields stored with the runs (no references then).

    ``recorded`` maps instance id -> (kind, instance_spec JSON) as stored in the runs.
    """
    from hopbench.harness.bench.suites import Instance

    known = suite.by_id if suite is not None else {}
    order = {inst.id: k for k, inst in enumerate(suite.instances)} if suite is not None else {}
    out: dict[str, InstanceFacts] = {}
    extra = sorted(i for i in recorded if i not in known)
    for k, ident in enumerate(extra):
        order[ident] = len(known) + k
    for ident, (kind, spec) in recorded.items():
        if ident in known:
            inst = known[ident]
        else:
            try:
                fields = json.loads(spec)
            except (TypeError, json.JSONDecodeError):
                raise HopbenchError(f"run of instance {ident!r} (suite {suite_name}) has no readable instance "
                                    f"fields; re-run it with 'hopbench run --rerun all'") from None
            inst = Instance(id=ident, suite=suite_name, kind=kind, fields=fields)
        out[ident] = instance_facts(inst, order[ident])
    return out
