"""Leaderboards: per-suite tables aggregated from the recorded runs, never written by hand.

One row per (instance, solver, parameter set), computed from the ``runs``
table of a results store (:mod:`harness.bench.store`) -- the benchmark runs, not the
Optuna trials of ``hopbench tune`` (rows with a ``study``):

``runs``             cells with status ``ok`` (only these enter the statistics)
``errors``, ``timeouts``, ``skipped``   the other cells, as counts
``mean``, ``ci95``   mean objective over the ok runs (seeds) and the half-width of its
                     95% Student-t confidence interval, ``t(0.975, n-1) * s / sqrt(n)``
                     with ``s`` the sample standard deviation (blank for n = 1)
``best``             smallest objective; its run's solution is written next to the board
``median_time_s``    median wall time of the ok runs
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

Gaps are fractions (0.05 = 5% above the reference).  An ok run whose graph is
disconnected has an infinite objective (stored as NULL); it counts as ``inf``, so
its row's mean is ``inf`` and it ranks last.  Published reference rows (the papers'
own numbers) are kept apart (:attr:`Board.references`) and shown beside ours,
marked, by the markdown board and the site.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np

from harness.errors import HopbenchError
from harness.problems.registry import all_kinds, get_kind
from harness.problems.registry import kind_of_objective as get_kind_of_objective


def board_columns() -> list[str]:
    """The columns of ``board.csv``, in order: the shared ones with, after the median time, the
    ``mean_<metric>`` columns of every registered problem kind."""
    metrics = list(dict.fromkeys(c.column for kind in all_kinds() for c in kind.metric_columns))
    return ["suite", "instance", "group", "n", "objective_name", "solver", "params", "params_json", "runs", "errors",
            "timeouts", "skipped", "mean", "ci95", "std", "best", "worst", "median_time_s", *metrics, "lower_bound",
            "gap_lower_bound", "optimum", "gap_optimum", "best_known", "gap_best_known", "published_metric",
            "published_best", "published_metric_mean", "gap_published", "rank", "best_seed", "best_run_id",
            "solution"]


def reference_columns() -> list[str]:
    """The columns of ``references.csv`` (the published values), in order; other keys go to ``extra``."""
    metrics = list(dict.fromkeys(m for kind in all_kinds() for m in kind.reference_metrics))
    return ["suite", "instance", "group", "source", "label", "solver", "objective", *metrics, "note", "extra"]


#: solution documents larger than this are written gzip-compressed (``.json.gz``)
DEFAULT_COMPRESS_OVER = 1_000_000

#: means closer than this share a rank (sums of the same floats in another order differ in the last bits)
RANK_DECIMALS = 10


# --------------------------------------------------------------------------- instances


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
    """
    values = [reference_values(r, kind, objective) for r in references]
    spec = get_kind(kind)
    candidates = (spec.primary_metric(objective), "objective", *(c.metric for c in spec.metric_columns))
    for metric in dict.fromkeys(candidates):
        found = [v[metric] for v in values if metric in v]
        if found:
            return metric, float(min(found))
    return None, None


def instance_facts(instance: Any, order: int) -> InstanceFacts:
    """Facts of a suite :class:`~harness.bench.suites.Instance` (builds its problem for the bounds)."""
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
                         references=tuple(instance.references), published_metric=metric, published_best=best)


def suite_facts(suite: Any | None, suite_name: str, recorded: dict[str, tuple[str, str]]) -> dict[str, InstanceFacts]:
    """Facts of every instance that has runs: from the suite file when it still defines the
    instance, else rebuilt from the instance fields stored with the runs (no references then).

    ``recorded`` maps instance id -> (kind, instance_spec JSON) as stored in the runs.
    """
    from harness.bench.suites import Instance

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


# --------------------------------------------------------------------------- statistics


def ci95_halfwidth(values: np.ndarray) -> float | None:
    """Half-width of the 95% Student-t confidence interval of the mean; None for fewer than 2 values
    or when a value is infinite."""
    from scipy import stats

    values = np.asarray(values, dtype=float)
    n = len(values)
    if n < 2:
        return None
    if not np.isfinite(values).all():
        return None  # an interval around an infinite mean says nothing
    s = float(np.std(values, ddof=1))
    return float(stats.t.ppf(0.975, n - 1) * s / math.sqrt(n))


def relative_gap(value: float | None, reference: float | None) -> float | None:
    """``(value - reference) / reference``; None when either is missing or the reference is 0."""
    if value is None or reference is None or reference == 0 or not math.isfinite(reference):
        return None
    if not math.isfinite(value):
        return math.inf
    return (value - reference) / reference


def rank_values(means: list[float | None]) -> list[int | None]:
    """Competition ranks (1, 1, 3) of the means, ascending; None stays unranked."""
    keys = [None if m is None else (round(m, RANK_DECIMALS) if math.isfinite(m) else math.inf) for m in means]
    ranked = [k for k in keys if k is not None]
    return [None if k is None else 1 + sum(1 for o in ranked if o < k) for k in keys]


def _as_objective(x: Any) -> float:
    """A recorded objective: NULL (a disconnected graph's inf) reads as inf."""
    return math.inf if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _metrics_of(text: Any) -> dict[str, Any]:
    if not isinstance(text, str) or not text:
        return {}
    try:
        out = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return out if isinstance(out, dict) else {}


def _metric_value(metrics: dict[str, Any], objective: float, key: str) -> float | None:
    if key == "objective":
        return objective
    if key not in metrics:
        return None
    v = metrics[key]
    return math.inf if v is None else float(v)


def _mean(values: list[float]) -> float | None:
    if not values:
        return None
    return math.inf if any(not math.isfinite(v) for v in values) else float(np.mean(values))


def param_labels(runs) -> dict[tuple[str, str], str]:
    """``(solver, params JSON) -> label``: the runner's params tag, made unique per solver.

    Two parameter sets share a tag when a solver's defaults changed between
    runs (both are tagged ``default``); a short hash keeps their rows apart.
    """
    labels: dict[tuple[str, str], str] = {}
    for (solver, params), g in runs.groupby(["solver", "params"], sort=True):
        labels[(solver, params)] = str(g["params_tag"].iloc[0])
    by_label: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for key, tag in labels.items():
        by_label.setdefault((key[0], tag), []).append(key)
    for (_solver, tag), keys in by_label.items():
        if len(keys) > 1:
            for key in keys:
                labels[key] = f"{tag}#{hashlib.sha1(key[1].encode()).hexdigest()[:6]}"
    return labels


def budget_label(time_limit_s: Any, cell_key: str) -> str:
    """A run's budget as shown on boards: ``60s``, ``5s/2000ev``."""
    parts = []
    if time_limit_s is not None and not (isinstance(time_limit_s, float) and math.isnan(time_limit_s)):
        parts.append(f"{float(time_limit_s):g}s")
    match = re.search(r"\|e=(\d+)(?:\||$)", cell_key or "")
    if match:
        parts.append(f"{match.group(1)}ev")
    return "/".join(parts)


def with_budgets(runs):
    """Runs under different budgets are different rows: the budget joins the parameters.

    A cell's identity includes its time limit and evaluation budget, so the same
    parameters run at 10 s and at 60 s are two cells; averaging them together would
    mix two experiments.  Where a solver ran under several budgets, its labels show
    them (``default @10s``, ``default @60s``).
    """
    runs = runs.copy()
    runs["_budget"] = [budget_label(t, k) for t, k in zip(runs["time_limit_s"], runs["cell_key"])]
    # only where a solver ran under several budgets: elsewhere the label would be noise
    mixed = runs.groupby("solver")["_budget"].transform("nunique") > 1
    runs.loc[mixed, "params"] = runs.loc[mixed, "params"] + " @" + runs.loc[mixed, "_budget"]
    runs.loc[mixed, "params_tag"] = runs.loc[mixed, "params_tag"] + " @" + runs.loc[mixed, "_budget"]
    return runs.drop(columns="_budget")


def display_label(solver: str, params: str) -> str:
    """How plots name a (solver, params) row: ``solver @budget`` for default parameters."""
    if params == "default":
        return solver
    if params.startswith("default @"):
        return f"{solver} {params[len('default '):]}"
    return f"{solver} [{params}]"


# --------------------------------------------------------------------------- the board


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


def aggregate(runs, facts: dict[str, InstanceFacts], suite: str,
              labels: dict[tuple[str, str], str] | None = None):
    """The board rows (a DataFrame with :func:`board_columns`) from a suite's runs
    (``labels``: their :func:`param_labels`, when the caller has them already)."""
    import pandas as pd

    if runs.empty:
        return pd.DataFrame(columns=board_columns())
    labels = labels if labels is not None else param_labels(runs)
    out = []
    for (instance, solver, params), g in runs.groupby(["instance", "solver", "params"], sort=False):
        fa = facts[instance]
        ok = g[g["status"] == "ok"]
        objectives = [_as_objective(x) for x in ok["objective"]]
        metrics = [_metrics_of(m) for m in ok["metrics"]]
        mean = _mean(objectives)
        finite = [v for v in objectives if math.isfinite(v)]

        def metric_mean(key: str) -> float | None:
            vals = [_metric_value(m, o, key) for m, o in zip(metrics, objectives)]
            vals = [v for v in vals if v is not None]
            return _mean(vals) if len(vals) == len(objectives) else None

        best_seed = best_run = None
        if len(ok):
            order = sorted(zip(objectives, ok["seed"].astype(int), ok["id"].astype(int)))
            _, best_seed, best_run = order[0]
        pub_mean = metric_mean(fa.published_metric) if fa.published_metric else None
        out.append({
            "suite": suite, "instance": instance, "group": fa.group, "n": fa.n, "objective_name": fa.objective,
            "solver": solver, "params": labels[(solver, params)], "params_json": params,
            "runs": len(ok), "errors": int((g["status"] == "error").sum()),
            "timeouts": int((g["status"] == "timeout").sum()), "skipped": int((g["status"] == "skipped").sum()),
            "mean": mean, "ci95": ci95_halfwidth(np.array(objectives)) if objectives else None,
            "std": (float(np.std(objectives, ddof=1)) if len(objectives) > 1 and len(finite) == len(objectives)
                    else None),
            "best": min(objectives) if objectives else None, "worst": max(objectives) if objectives else None,
            "median_time_s": float(ok["elapsed_s"].median()) if len(ok) and ok["elapsed_s"].notna().any() else None,
            **{c.column: metric_mean(c.metric) for kind in all_kinds() for c in kind.metric_columns},
            "lower_bound": fa.lower_bound, "gap_lower_bound": relative_gap(mean, fa.lower_bound),
            "optimum": fa.optimum, "gap_optimum": relative_gap(mean, fa.optimum),
            "best_known": fa.best_known, "gap_best_known": relative_gap(mean, fa.best_known),
            "published_metric": fa.published_metric, "published_best": fa.published_best,
            "published_metric_mean": pub_mean, "gap_published": relative_gap(pub_mean, fa.published_best),
            "rank": None, "best_seed": best_seed, "best_run_id": best_run, "solution": None,
        })
    df = pd.DataFrame(out, columns=board_columns())
    for instance, idx in df.groupby("instance", sort=False).groups.items():
        ranks = rank_values([None if pd.isna(m) else float(m) for m in df.loc[idx, "mean"]])
        df.loc[idx, "rank"] = pd.array(ranks, dtype="Int64")
    df["rank"] = df["rank"].astype("Int64")
    for col in ("best_seed", "best_run_id"):
        df[col] = df[col].astype("Int64")
    # instances in suite order, then by rank (unranked last), then by name
    df["_order"] = df["instance"].map(lambda i: facts[i].order)
    df["_rank"] = df["rank"].fillna(10**9).astype(int)
    df = df.sort_values(["_order", "_rank", "solver", "params"], kind="stable").drop(columns=["_order", "_rank"])
    return df.reset_index(drop=True)


def references_frame(facts: dict[str, InstanceFacts], suite: str):
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


def _provenance(runs) -> dict[str, Any]:
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
    from harness.bench.suites import load_suite

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
                 provenance=_provenance(runs))


def _traces(store: Any, run_ids: list[int], chunk: int = 500):
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

    from harness.bench.store import runs as runs_table

    ids = sorted({int(i) for i in run_ids})
    with store.engine.connect() as conn:
        for i in range(0, len(ids), chunk):
            q = select(runs_table.c.id, runs_table.c.solution).where(runs_table.c.id.in_(ids[i:i + chunk]))
            for run_id, text in conn.execute(q).all():
                if text:
                    yield int(run_id), text


# --------------------------------------------------------------------------- analyses for the plots


def win_rates(rows):
    """Share of instances where row label A beats B (strictly lower mean objective).

    Only instances where both have ok runs count; ties count for neither, so
    ``W[A, B] + W[B, A] <= 1``.  Returns ``(labels, W, counts)`` with
    ``counts[A, B]`` the number of instances compared; W is NaN where it is 0.
    """
    ranked = rows[rows["runs"] > 0]
    labels = sorted({display_label(s, p) for s, p in zip(ranked["solver"], ranked["params"])})
    index = {lab: k for k, lab in enumerate(labels)}
    k = len(labels)
    wins = np.zeros((k, k))
    counts = np.zeros((k, k), dtype=int)
    for _, g in ranked.groupby("instance", sort=False):
        means = {display_label(s, p): round(float(m), RANK_DECIMALS) if math.isfinite(m) else math.inf
                 for s, p, m in zip(g["solver"], g["params"], g["mean"])}
        for a, ma in means.items():
            for b, mb in means.items():
                if a == b:
                    continue
                counts[index[a], index[b]] += 1
                wins[index[a], index[b]] += ma < mb
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(counts > 0, wins / np.maximum(counts, 1), np.nan)
    return labels, share, counts


def anytime_quantiles(points: list[tuple[np.ndarray, np.ndarray, float]], grid: np.ndarray) -> np.ndarray:
    """Quartiles over seeds of the best-so-far value on a time grid.

    ``points`` holds one ``(times, values, end)`` per run: its trace and the
    time it ended.  Before its first report a run has no solution and counts
    as ``inf``; after ``end`` it keeps its last value.  Returns a ``(3, len(grid))``
    array (25%, 50%, 75%), ``inf`` where fewer than that share of runs had reported.
    """
    curves = np.full((len(points), len(grid)), np.inf)
    for r, (times, values, _end) in enumerate(points):
        if len(times) == 0:
            continue
        best = np.minimum.accumulate(np.where(np.isfinite(values), values, np.inf))
        pos = np.searchsorted(times, grid, side="right") - 1
        curves[r] = np.where(pos >= 0, best[np.maximum(pos, 0)], np.inf)
    return quantiles_with_inf(curves, (0.25, 0.5, 0.75))


def quantiles_with_inf(values: np.ndarray, qs: Iterable[float]) -> np.ndarray:
    """Linear-interpolation quantiles along axis 0 where ``inf`` means "no value yet".

    numpy's interpolation between a finite value and ``inf`` yields NaN; here
    it yields ``inf`` unless the quantile falls exactly on a finite value.
    """
    qs = tuple(qs)
    values = np.sort(np.asarray(values, dtype=float), axis=0)
    n = values.shape[0]
    out = np.full((len(qs),) + values.shape[1:], np.inf)
    if n == 0:
        return out
    for k, q in enumerate(qs):
        pos = (n - 1) * q
        lo, hi = int(math.floor(pos)), int(math.ceil(pos))
        frac = pos - lo
        a, b = values[lo], values[hi]
        with np.errstate(invalid="ignore"):
            mixed = a + (b - a) * frac
        exact = a if frac == 0 else np.where(np.isfinite(b), mixed, np.inf)
        out[k] = np.where(np.isfinite(a), exact, np.inf)
    return out


# --------------------------------------------------------------------------- files


def slug(text: str, limit: int = 80) -> str:
    """A filename-safe version of an id (``ring:16/cap10/b8/aspl`` -> ``ring_16-cap10-b8-aspl``)."""
    s = text.replace("/", "-")
    s = re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("._-")
    return s[:limit] or "x"


def solution_filename(instance: str, solver: str, params: str, seed: int, cell: str) -> str:
    """Stable, unique file name of a row's best solution (the hash tells apart ids that slug alike)."""
    digest = hashlib.sha1(cell.encode()).hexdigest()[:8]
    return f"{slug(instance)}.{slug(solver, 40)}.{slug(params, 40)}.s{seed}.{digest}.json"


def write_solutions(board: Board, store: Any, suite_dir: Path, *, compress_over: int = DEFAULT_COMPRESS_OVER
                    ) -> int:
    """Write each row's best solution under ``suite_dir/solutions`` and fill ``rows.solution``.

    Earlier files in that directory are removed first, so it holds exactly the
    files the board links to.  Returns the number written.
    """
    sol_dir = suite_dir / "solutions"
    sol_dir.mkdir(parents=True, exist_ok=True)
    for old in list(sol_dir.glob("*.json")) + list(sol_dir.glob("*.json.gz")):
        old.unlink()
    rows = board.rows
    keys = dict(zip(board.runs["id"].astype(int), board.runs["cell_key"]))
    by_run: dict[int, int] = {}
    for pos, run_id in enumerate(rows["best_run_id"]):
        if not _isna(run_id):
            by_run[int(run_id)] = pos
    paths: list[str | None] = [None] * len(rows)
    for run_id, doc in iter_solutions(store, by_run):
        rec = rows.iloc[by_run[run_id]]
        # compact separators: routing tables are large and nobody reads them by eye
        data = (json.dumps(json.loads(doc), separators=(",", ":")) + "\n").encode()
        name = solution_filename(rec["instance"], rec["solver"], rec["params"], int(rec["best_seed"]),
                                 keys.get(run_id, str(run_id)))
        if len(data) > compress_over:
            name += ".gz"
            # mtime=0: the same solution gives the same bytes (no churn in the published files)
            data = gzip.compress(data, compresslevel=9, mtime=0)
        (sol_dir / name).write_bytes(data)
        paths[by_run[run_id]] = f"solutions/{name}"
    rows["solution"] = paths
    return sum(p is not None for p in paths)


def _isna(x: Any) -> bool:
    try:
        import pandas as pd

        return bool(pd.isna(x))
    except (TypeError, ValueError):
        return False


def board_metadata(board: Board, plots: dict[str, str]) -> dict[str, Any]:
    """The ``board.json`` summary the site index is built from."""
    rows = board.rows
    return {
        "format": "hopbench.board/1",
        "suite": board.suite,
        "description": board.description,
        "kinds": sorted({f.kind for f in board.facts.values()}),
        "instances": int(rows["instance"].nunique()),
        "rows": int(len(rows)),
        "solvers": sorted(rows["solver"].unique().tolist()),
        "groups": list(dict.fromkeys(rows["group"].tolist())),
        "references": int(len(board.references)),
        "plots": plots,
        "provenance": board.provenance,
    }


def write_board(board: Board, store: Any, out_dir: str | Path, *, plots: bool = True,
                compress_over: int = DEFAULT_COMPRESS_OVER) -> dict[str, Path]:
    """Write ``out_dir/<suite>/``: board.md, board.csv, references.csv, board.json,
    solutions/ and (unless ``plots=False``) plots/.  Returns the main paths."""
    from harness.documents import strict_json

    suite_dir = Path(out_dir) / board.suite
    suite_dir.mkdir(parents=True, exist_ok=True)
    write_solutions(board, store, suite_dir, compress_over=compress_over)
    made: dict[str, str] = {}
    if plots:
        from harness.report.plots import make_plots

        made = make_plots(board, suite_dir / "plots")
    board.rows.to_csv(suite_dir / "board.csv", index=False)
    board.references.to_csv(suite_dir / "references.csv", index=False)
    meta = board_metadata(board, made)
    (suite_dir / "board.json").write_text(json.dumps(strict_json(meta), indent=1, sort_keys=True) + "\n")
    (suite_dir / "board.md").write_text(render_markdown(board, made))
    return {"dir": suite_dir, "markdown": suite_dir / "board.md", "csv": suite_dir / "board.csv"}


# --------------------------------------------------------------------------- formatting (markdown board and site)


def _missing(x: Any) -> bool:
    return x is None or _isna(x)


def fmt_num(x: Any, digits: int = 4) -> str:
    """A value for a table cell: blank when missing, integers without decimals."""
    if _missing(x):
        return ""
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.{digits}f}".rstrip("0").rstrip(".")


def fmt_gap(x: Any) -> str:
    """A relative gap as a signed percentage."""
    if _missing(x):
        return ""
    x = float(x)
    if math.isinf(x):
        return "inf"
    return f"{100 * x:+.2f}%"


def fmt_time(x: Any) -> str:
    return "" if _missing(x) else f"{float(x):.3g}"


def fmt_failed(rec: dict[str, Any]) -> str:
    parts = [f"{int(rec[k])} {name}" for k, name in (("errors", "error"), ("timeouts", "timeout"),
                                                      ("skipped", "skipped")) if int(rec[k])]
    return ", ".join(parts)


def metric_columns(kind: str) -> list[tuple[str, str, str]]:
    """``(board column, reference key, header)`` of the metrics a kind shows beside the objective."""
    return [(c.column, c.metric, c.header) for c in get_kind(kind).metric_columns]


def names_metric(rec: dict[str, Any]) -> bool:
    """Whether a row's published gap compares a metric other than the objective (then it is named)."""
    metric = rec.get("published_metric")
    if metric in (None, "objective") or _missing(metric):
        return False
    return not get_kind_of_objective(rec.get("objective_name")).metric_is_objective(metric, rec.get("objective_name"))


def visible(rec: dict[str, Any]) -> bool:
    """Rows shown in the markdown board and the site: some run other than a declined (skipped) one."""
    return int(rec["runs"]) + int(rec["errors"]) + int(rec["timeouts"]) > 0


def reference_label(ref: dict[str, Any]) -> str:
    return f"† {ref.get('label') or 'published'} — {ref.get('source') or 'published'}"


def interleave(rows: list[dict[str, Any]], refs: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """One instance's rows with its published reference rows placed right after the (first) row of
    the solver they correspond to; references without a matching row close the block."""
    out: list[tuple[str, dict[str, Any]]] = []
    placed: set[int] = set()
    seen: set[str] = set()
    for rec in rows:
        out.append(("ours", rec))
        if rec["solver"] in seen:
            continue
        seen.add(rec["solver"])
        for k, ref in enumerate(refs):
            if k not in placed and ref.get("solver") == rec["solver"]:
                out.append(("published", ref))
                placed.add(k)
    out.extend(("published", ref) for k, ref in enumerate(refs) if k not in placed)
    return out


GAP_LEGEND = (
    "**Columns.** *Runs*: ok runs (seeds) in the statistics; *Failed*: cells that ended in an error or a "
    "timeout, or that the solver declined. *Mean ± 95% CI*: mean objective over the ok runs ± the half-width "
    "of the Student-t 95% confidence interval (blank for one run). *Best*: the best run's objective, linked "
    "to its solution file (`hopbench verify FILE` re-checks it). *Gap LB*: (mean − lower bound) / lower bound, "
    "the bound being Moore/Cerf for (N, cap) through the objective, or ceil(γ_perfect) on the max channel load "
    "of a routing table. *Gap opt.*: to the proven optimum. *Gap pub.*: our mean of the compared metric "
    "(named in brackets when it is not the objective) against the best published value of that metric. "
    "*Rank*: by mean objective per instance, ties share a rank. Rows marked † are the papers' published "
    "values, not our runs."
)


def _md(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(board: Board, plots: dict[str, str] | None = None) -> str:
    """The markdown board: provenance, plots, legend, then one table per instance group."""
    rows = board.rows
    refs = board.references
    prov = board.provenance
    lines = [f"# Leaderboard: {board.suite}", ""]
    if board.description:
        lines += [board.description, ""]
    statuses = ", ".join(f"{v} {k}" for k, v in prov.get("statuses", {}).items())
    lines += [f"Generated by `hopbench board` from {prov.get('runs', 0)} recorded runs ({statuses}); nothing here "
              f"is written by hand. Runs recorded {prov.get('first_started') or '?'} to "
              f"{prov.get('last_finished') or '?'}; hopbench {', '.join(prov.get('hopbench_versions', [])) or '?'}; "
              f"git commit {', '.join(c[:10] for c in prov.get('git_commits', [])) or 'unknown'}; "
              f"host {', '.join(prov.get('hosts', [])) or 'unknown'}. Machine-readable: "
              f"[board.csv](board.csv), [references.csv](references.csv).", ""]
    for name, path in (plots or {}).items():
        lines += [f"![{name.replace('_', ' ')}]({path})", ""]
    has_best_known = rows["best_known"].notna().any() if len(rows) else False
    lines += [GAP_LEGEND + (" *Gap b.k.*: to the suite's best-known value." if has_best_known else ""), ""]
    by_instance_refs: dict[str, list[dict[str, Any]]] = {}
    for ref in refs.to_dict("records"):
        by_instance_refs.setdefault(ref["instance"], []).append(ref)
    records = [r for r in rows.to_dict("records") if visible(r)]
    groups = list(dict.fromkeys(r["group"] for r in records))
    for group in groups:
        in_group = [r for r in records if r["group"] == group]
        kind = board.facts[in_group[0]["instance"]].kind
        mcols = metric_columns(kind)
        header = ["Instance", "Solver", "Params", "Runs", "Failed", "Mean ± 95% CI", "Best",
                  *[h for _, _, h in mcols], "Median time (s)", "Gap LB", "Gap opt."]
        header += ["Gap b.k."] if has_best_known else []
        header += ["Gap pub.", "Rank"]
        lines += [f"## {group}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        notes: dict[str, list[str]] = {}
        for instance in dict.fromkeys(r["instance"] for r in in_group):
            block = [r for r in in_group if r["instance"] == instance]
            first = True
            for what, rec in interleave(block, by_instance_refs.get(instance, [])):
                cells = [_md(instance) if first else ""]
                first = False
                if what == "ours":
                    mean = fmt_num(rec["mean"])
                    if mean and not _missing(rec["ci95"]):
                        mean += f" ± {fmt_num(rec['ci95'])}"
                    best = fmt_num(rec["best"])
                    if best and rec["solution"]:
                        best = f"[{best}]({rec['solution']})"
                    pub = fmt_gap(rec["gap_published"])
                    if pub and names_metric(rec):
                        pub += f" ({rec['published_metric']})"
                    cells += [_md(rec["solver"]), _md(rec["params"]), str(int(rec["runs"])), fmt_failed(rec), mean,
                              best, *[fmt_num(rec[c]) for c, _, _ in mcols], fmt_time(rec["median_time_s"]),
                              fmt_gap(rec["gap_lower_bound"]), fmt_gap(rec["gap_optimum"])]
                    cells += [fmt_gap(rec["gap_best_known"])] if has_best_known else []
                    cells += [pub, "" if _missing(rec["rank"]) else str(int(rec["rank"]))]
                else:
                    cells += [_md(reference_label(rec)), "published", "", "", fmt_num(rec["objective"]), "",
                              *[fmt_num(rec[k]) for _, k, _ in mcols], "", "", ""]
                    cells += [""] if has_best_known else []
                    cells += ["", ""]
                    if rec.get("note") and not _missing(rec["note"]):
                        notes.setdefault(str(rec["note"]), []).append(f"{instance} ({rec['label']})")
                lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        for note, where in notes.items():
            lines.append(f"- † {_md(note)}: {', '.join(where)}")
        if notes:
            lines.append("")
    if not groups:
        lines += ["No runs to show (every recorded cell was declined by its solver).", ""]
    return "\n".join(lines)
