"""The board: one suite's recorded runs aggregated into a table, never written by hand.

One row per (instance, solver, parameter set), computed from the ``runs``
table of a results store (:mod:`hopbench.harness.bench.store`) -- the benchmark runs, not the
Optuna trials of ``hopbench tune`` (rows with a ``study``):

``runs``             cells with status ``ok`` (only these enter the statistics)
``errors``, ``timeouts``, ``skipped``   the other cells, as counts
``mean``, ``ci95``   mean objective over the ok runs (seeds) and the half-width of its
                     95% Student-t confidence interval, ``t(0.975, n-1) * s / sqrt(n)``
                     with ``s`` the sample standard deviation (blank for n = 1)
``best``             smallest objective (largest for a maximised one, a throughput); its run's
                     solution is written next to the board
``budget``           the cells' budget, ``60s`` or ``5s/200ev`` (:func:`~hopbench.harness.report.labels.budget_label`);
                     the tables show it after the parameters (``default @600s``)
``median_time_s``    median wall time of the ok runs
``mean_<metric>``    the mean of each metric the instance's kind shows (diameter and ASPL;
                     max load and σ(4, R)) over the ok runs
``<metric>_minus_<point>``   that mean minus the instance's reference value of the metric
                     (a difference in the metric's unit, not a fraction), where the kind
                     gives one: Graph Golf's gaps ``diameter_minus_lower_bound`` (k - K),
                     ``aspl_minus_lower_bound`` (l - L) and the same ``_minus_best_known``
``gap_lower_bound``  ``(mean - LB) / LB``: LB is the objective's lower bound for the
                     instance -- for shortcut problems the Moore / Cerf bounds of
                     (N, cap) pushed through the objective (``objective_value``), for
                     routing problems with objective ``max_load`` ceil(γ_perfect)
                     (loads sum to the total minimal route length over |C| channels)
``gap_optimum``      ``(mean - optimum) / optimum`` where the suite gives a proven optimum
``gap_best_known``   ``(mean - best_known) / best_known`` where the suite gives one
``gap_published``    ``(our mean of M - P) / P`` with P the best (smallest) value of metric
                     M among the instance's published reference rows; M is named in
                     ``published_metric``: the instance's own objective when the papers
                     report it (or report what it is computed from), otherwise the metric
                     they do report (e.g. the diameter for Fuad et al.'s Table 2)
``rank``             per instance, by mean objective (ascending; means equal to 1e-10 share
                     a rank, the next rank skips: 1, 1, 3); rows without ok runs have none
``declined_reasons`` the reasons the solver gave where it declined the instance (cells recorded
                     ``skipped``), each distinct text once and whole, as a JSON list; blank when none

Gaps are fractions (0.05 = 5% above the reference; for a maximised objective, 5% below it:
a positive gap is worse either way, and ranks run from the largest mean).  An ok run whose graph is
disconnected has an infinite objective (stored as NULL); it counts as ``inf``, so
its row's mean is ``inf`` and it ranks last.  Published reference rows (the papers'
own numbers) are kept apart (:attr:`Board.references`) and shown beside ours,
marked, by the markdown board and the site.

:func:`build_board` reads the runs (and their anytime traces) from the store
and returns a :class:`Board`; :mod:`hopbench.harness.report.writer` writes it out
(solution files, ``board.csv``, ``references.csv``, ``board.json``, the plots
and the markdown board).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Iterator

import numpy as np

from hopbench.harness.errors import HopbenchError
from hopbench.harness.problems.kind import MetricColumn
from hopbench.harness.problems.registry import all_kinds, is_maximised
from hopbench.harness.report.facts import InstanceFacts, reference_values, suite_facts
from hopbench.harness.report.labels import budget_label, display_label, param_labels, with_budgets
from hopbench.harness.report.statistics import ci95_halfwidth, rank_values, relative_gap

if TYPE_CHECKING:
    import pandas as pd


def board_columns() -> list[str]:
    """The columns of ``board.csv``, in order: the shared ones with, after the median time, the
    metric columns of every registered problem kind (``mean_<metric>``, and the differences to
    reference points such as ``diameter_minus_lower_bound``; blank on other kinds' rows)."""
    metrics = list(dict.fromkeys(c.column for kind in all_kinds() for c in kind.metric_columns))
    return ["suite", "instance", "group", "n", "objective_name", "solver", "params", "params_json", "runs", "errors",
            "timeouts", "skipped", "budget", "mean", "ci95", "std", "best", "worst", "median_time_s", *metrics, "lower_bound",
            "gap_lower_bound", "optimum", "gap_optimum", "best_known", "gap_best_known", "published_metric",
            "published_best", "published_metric_mean", "gap_published", "rank", "best_seed", "best_run_id",
            "solution", "declined_reasons"]


def reference_columns() -> list[str]:
    """The columns of ``references.csv`` (the published values), in order; other keys go to ``extra``."""
    metrics = list(dict.fromkeys(m for kind in all_kinds() for m in kind.reference_metrics))
    return ["suite", "instance", "group", "source", "label", "solver", "objective", *metrics, "note", "extra"]


def _as_objective(x: Any) -> float:
    """A recorded objective: NULL (a disconnected graph's inf) reads as inf."""
    return math.inf if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _metrics_of(text: Any) -> dict[str, Any]:
    """A run's recorded metrics JSON as a dict (empty when missing or unreadable)."""
    if not isinstance(text, str) or not text:
        return {}
    try:
        out = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return out if isinstance(out, dict) else {}


def _metric_value(metrics: dict[str, Any], objective: float, key: str) -> float | None:
    """One metric of a run (``objective`` is the run's objective); None when not recorded, NULL is inf."""
    if key == "objective":
        return objective
    if key not in metrics:
        return None
    v = metrics[key]
    return math.inf if v is None else float(v)


def _declined_reasons(cells: pd.DataFrame) -> str | None:
    """The distinct reasons of a row's declined cells (in seed order) as a JSON list, None when it has none:
    a board shows them whole, since a count alone does not say why a solver left an instance out."""
    declined = cells[cells["status"] == "skipped"]
    if declined.empty or "error" not in declined:
        return None
    if "seed" in declined:
        declined = declined.sort_values("seed", kind="stable")
    reasons = [str(e) for e in declined["error"] if isinstance(e, str) and e.strip()]
    return json.dumps(list(dict.fromkeys(reasons))) if reasons else None


def _mean(values: list[float]) -> float | None:
    """The mean, inf when any value is (a disconnected run), None for no values."""
    if not values:
        return None
    return math.inf if any(not math.isfinite(v) for v in values) else float(np.mean(values))


@dataclass
class Board:
    """One suite's leaderboard: rows, published references, and what the plots need."""

    suite: str
    description: str
    rows: Any                      # pandas DataFrame, board_columns()
    references: Any                # pandas DataFrame, reference_columns()
    facts: dict[str, InstanceFacts]
    runs: Any                      # the suite's runs (no solutions) with a ``label`` column
    traces: Any                    # anytime points of the ok runs
    provenance: dict[str, Any] = field(default_factory=dict)
    #: one line per row whose best run beats the suite's stated optimum: the suite is wrong there
    contradictions: list[str] = field(default_factory=list)


def aggregate(runs: pd.DataFrame, facts: dict[str, InstanceFacts], suite: str,
              labels: dict[tuple[str, str], str] | None = None) -> pd.DataFrame:
    """The board rows (a DataFrame with :func:`board_columns`) from a suite's runs
    (``labels``: their :func:`param_labels`, when the caller has them already)."""
    import pandas as pd

    if runs.empty:
        return pd.DataFrame(columns=board_columns())
    labels = labels if labels is not None else param_labels(runs)
    out = []
    for (instance, solver, params), g in runs.groupby(["instance", "solver", "params"], sort=False):
        fa = facts[instance]
        maximise = is_maximised(fa.objective)
        ok = g[g["status"] == "ok"]
        objectives = [_as_objective(x) for x in ok["objective"]]
        metrics = [_metrics_of(m) for m in ok["metrics"]]
        mean = _mean(objectives)
        finite = [v for v in objectives if math.isfinite(v)]

        def metric_mean(key: str) -> float | None:
            vals = [_metric_value(m, o, key) for m, o in zip(metrics, objectives)]
            vals = [v for v in vals if v is not None]
            return _mean(vals) if len(vals) == len(objectives) else None

        def metric_cell(column: MetricColumn) -> float | None:
            # a mean, or that mean minus the instance's reference point (None without one)
            value = metric_mean(column.metric)
            if column.minus is None or value is None:
                return value
            point = fa.reference_points.get(column.minus, {}).get(column.metric)
            return None if point is None else value - point

        best_seed = best_run = None
        if len(ok):
            order = sorted(zip([-v if maximise else v for v in objectives], ok["seed"].astype(int),
                               ok["id"].astype(int)))
            _, best_seed, best_run = order[0]
        pub_mean = metric_mean(fa.published_metric) if fa.published_metric else None
        out.append({
            "suite": suite, "instance": instance, "group": fa.group, "n": fa.n, "objective_name": fa.objective,
            "solver": solver, "params": labels[(solver, params)], "params_json": params,
            "runs": len(ok), "errors": int((g["status"] == "error").sum()),
            "timeouts": int((g["status"] == "timeout").sum()), "skipped": int((g["status"] == "skipped").sum()),
            "budget": (budget_label(g["time_limit_s"].iloc[0], g["cell_key"].iloc[0])
                       if "time_limit_s" in g and "cell_key" in g else None),
            "mean": mean, "ci95": ci95_halfwidth(np.array(objectives)) if objectives else None,
            "std": (float(np.std(objectives, ddof=1)) if len(objectives) > 1 and len(finite) == len(objectives)
                    else None),
            "best": (max if maximise else min)(objectives) if objectives else None,
            "worst": (min if maximise else max)(objectives) if objectives else None,
            "median_time_s": float(ok["elapsed_s"].median()) if len(ok) and ok["elapsed_s"].notna().any() else None,
            **{c.column: metric_cell(c) for kind in all_kinds() for c in kind.metric_columns},
            "lower_bound": fa.lower_bound, "gap_lower_bound": relative_gap(mean, fa.lower_bound, maximise),
            "optimum": fa.optimum, "gap_optimum": relative_gap(mean, fa.optimum, maximise),
            "best_known": fa.best_known, "gap_best_known": relative_gap(mean, fa.best_known, maximise),
            "published_metric": fa.published_metric, "published_best": fa.published_best,
            "published_metric_mean": pub_mean, "gap_published": relative_gap(pub_mean, fa.published_best, maximise),
            "rank": None, "best_seed": best_seed, "best_run_id": best_run, "solution": None,
            "declined_reasons": _declined_reasons(g),
        })
    df = pd.DataFrame(out, columns=board_columns())
    for instance, idx in df.groupby("instance", sort=False).groups.items():
        ranks = rank_values([None if pd.isna(m) else float(m) for m in df.loc[idx, "mean"]],
                            is_maximised(facts[instance].objective))
        df.loc[idx, "rank"] = pd.array(ranks, dtype="Int64")
    df["rank"] = df["rank"].astype("Int64")
    for col in ("best_seed", "best_run_id"):
        df[col] = df[col].astype("Int64")
    # instances in suite order, then by rank (unranked last), then by name
    df["_order"] = df["instance"].map(lambda i: facts[i].order)
    df["_rank"] = df["rank"].fillna(10**9).astype(int)
    df = df.sort_values(["_order", "_rank", "solver", "params"], kind="stable").drop(columns=["_order", "_rank"])
    return df.reset_index(drop=True)


def references_frame(facts: dict[str, InstanceFacts], suite: str) -> pd.DataFrame:
    """The published reference rows of the instances on the board (:func:`reference_columns`)."""
    import pandas as pd

    columns = reference_columns()
    metrics = columns[columns.index("objective"):columns.index("note")]
    out = []
    for fa in sorted(facts.values(), key=lambda f: f.order):
        for ref in fa.references:
            values = reference_values(ref, fa.kind, fa.objective)
            extra = {k: v for k, v in ref.items() if k not in columns}
            out.append({
                "suite": suite, "instance": fa.id, "group": fa.group, "source": str(ref.get("source", "")),
                "label": str(ref.get("label", "")), "solver": ref.get("solver"),
                **{k: values.get(k) for k in metrics},
                "note": ref.get("note") or ref.get("erratum"),
                "extra": json.dumps(extra, sort_keys=True) if extra else None,
            })
    return pd.DataFrame(out, columns=columns)


def _provenance(runs: pd.DataFrame) -> dict[str, Any]:
    """Where the runs come from: counts by status, solvers, versions, commits, hosts, first and last times."""
    def distinct(col: str) -> list[str]:
        if col not in runs:
            return []
        return sorted({str(v) for v in runs[col].dropna()})

    def when(col: str, fn) -> str | None:
        if col not in runs or runs[col].dropna().empty:
            return None
        return fn(runs[col].dropna()).isoformat(timespec="seconds")

    statuses = runs["status"].value_counts().to_dict() if len(runs) else {}
    return {
        "runs": int(len(runs)), "statuses": {str(k): int(v) for k, v in sorted(statuses.items())},
        "solvers": distinct("solver"), "hopbench_versions": distinct("hopbench_version"),
        "git_commits": distinct("git_commit"), "hosts": distinct("host"),
        "first_started": when("started_at", lambda s: s.min()), "last_finished": when("finished_at", lambda s: s.max()),
    }


def build_board(store: Any, suite_name: str, *, suite: Any | None = None) -> Board:
    """Aggregate one suite's recorded runs into a :class:`Board`.

    ``suite`` defaults to the suite file of that name (for references, optima
    and instance order); without one, instances are rebuilt from the runs.
    """
    from hopbench.harness.bench.suites import load_suite

    runs = store.dataframe(suite=suite_name, with_solutions=False)
    # Optuna trials (hopbench tune) are recorded with their study; they tune, they do not compete
    runs = runs[runs["study"].isna()].reset_index(drop=True)
    if runs.empty:
        raise HopbenchError(f"no recorded runs of suite {suite_name!r} in this store; run "
                            f"'hopbench run --suite {suite_name}' first (or pass the right --storage)")
    runs = with_budgets(runs)
    if suite is None:
        try:
            suite = load_suite(suite_name)
        except HopbenchError:
            suite = None  # a suite loaded from a path elsewhere: the runs carry the instance fields
    recorded = {i: (str(g["kind"].iloc[0]), str(g["instance_spec"].iloc[0]))
                for i, g in runs.groupby("instance", sort=False)}
    facts = suite_facts(suite, suite_name, recorded)
    labels = param_labels(runs)
    rows = aggregate(runs, facts, suite_name, labels)
    runs = runs.copy()
    runs["params_label"] = [labels[(s, p)] for s, p in zip(runs["solver"], runs["params"])]
    runs["label"] = [display_label(s, p) for s, p in zip(runs["solver"], runs["params_label"])]
    ok_ids = runs.loc[runs["status"] == "ok", "id"].astype(int).tolist()
    traces = _traces(store, ok_ids)
    return Board(suite=suite_name, description=suite.description if suite is not None else "", rows=rows,
                 references=references_frame(facts, suite_name), facts=facts, runs=runs, traces=traces,
                 provenance=_provenance(runs), contradictions=optimum_contradictions(rows, facts))


def optimum_contradictions(rows: pd.DataFrame, facts: dict[str, InstanceFacts]) -> list[str]:
    """A line for every row whose best (re-verified) run is better than the suite's "proven optimum".

    Such a row proves the suite's optimum wrong (as (40, 5)'s 2.2333 in graphgolf was): the board says so
    instead of showing a negative gap to an optimum without comment.
    """
    import pandas as pd

    out = []
    for rec in rows.to_dict("records"):
        optimum, best = rec["optimum"], rec["best"]
        if optimum is None or best is None or pd.isna(optimum) or pd.isna(best):
            continue
        maximise = is_maximised(facts[rec["instance"]].objective)
        margin = 1e-9 * max(1.0, abs(float(optimum)))
        if (float(best) > float(optimum) + margin) if maximise else (float(best) < float(optimum) - margin):
            out.append(f"instance {rec['instance']}: {rec['solver']} (run {rec['best_run_id']}) scores "
                       f"{float(best):.10g}, better than the suite's optimum {float(optimum):.10g}; that optimum "
                       f"is wrong: correct it in the suite file")
    return out


def _traces(store: Any, run_ids: list[int], chunk: int = 500) -> pd.DataFrame:
    """The anytime points of the given runs (one row per report)."""
    import pandas as pd

    # chunks keep the IN list under database parameter limits
    parts = [store.traces_dataframe(run_ids[i:i + chunk]) for i in range(0, len(run_ids), chunk)]
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame(columns=["run_id", "idx", "elapsed_s", "evaluations", "value"])
    return pd.concat(parts, ignore_index=True)


def iter_solutions(store: Any, run_ids: Iterable[int], chunk: int = 20) -> Iterator[tuple[int, str]]:
    """``(run id, solution JSON)`` of the given runs only, a few at a time: a store's solutions can
    be gigabytes (routing tables of large tori are megabytes each)."""
    from sqlalchemy import select

    from hopbench.harness.bench.store import runs as runs_table

    ids = sorted({int(i) for i in run_ids})
    with store.engine.connect() as conn:
        for i in range(0, len(ids), chunk):
            q = select(runs_table.c.id, runs_table.c.solution).where(runs_table.c.id.in_(ids[i:i + chunk]))
            for run_id, text in conn.execute(q).all():
                if text:
                    yield int(run_id), text
