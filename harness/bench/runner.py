"""Running a benchmark matrix: suite instances x solvers x parameter sets x seeds.

One code path for a laptop and a cluster: the cells are submitted to a
``concurrent.futures.Executor`` — local threads that each drive a warm
sandbox process (:mod:`harness.bench.sandbox`), or ``Client(address).get_executor()``
of Dask distributed, whose worker threads drive sandboxes the same way.  The
coordinator alone writes to the store, one transaction per finished cell, so
re-running the same command resumes: cells already recorded are skipped
(``--rerun failed`` also retries errors and timeouts, ``--rerun all`` retries
everything).
"""
from __future__ import annotations

import concurrent.futures as cf
import itertools
import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from harness._paths import REPO_ROOT
from harness.bench.cells import failed_result, make_cell, result_row
from harness.bench.store import Store, params_tag
from harness.bench.suites import Suite
from harness.errors import HopbenchError

DEFAULT_TIME_LIMIT = 60.0
RERUN_CHOICES = ("failed", "all")


@dataclass
class MatrixPlan:
    """The cells of one ``hopbench run`` and which of them still need to run."""

    suite: Suite
    cells: list[dict[str, Any]]
    todo: list[dict[str, Any]]
    skipped_done: int = 0


@dataclass
class RunReport:
    total: int
    ran: int
    already_done: int
    statuses: Counter = field(default_factory=Counter)


def effective_time_limit(explicit: float | None, suite: Suite) -> float:
    """The limit each cell gets: the one asked for, else the suite's, else the default."""
    return float(explicit or suite.time_limit or DEFAULT_TIME_LIMIT)


def threads_per_worker(workers: int) -> int:
    """Cores each of ``workers`` parallel workers may use (numba threads in its sandbox)."""
    return max(1, (os.cpu_count() or 1) // max(1, workers))


def parse_param_grid(items: list[str], solver_names: list[str]) -> dict[str, dict[str, list[str]]]:
    """``["edgecut-full.t=5,10", ...]`` -> ``{"edgecut-full": {"t": ["5", "10"]}}``."""
    import solvers

    grid: dict[str, dict[str, list[str]]] = {}
    for item in items or []:
        left, sep, value = item.partition("=")
        name, dot, key = left.rpartition(".")
        if not sep or not dot or not name or not key:
            raise HopbenchError(f"--param {item!r} is malformed; write SOLVER.NAME=VALUE[,VALUE...], "
                                f"e.g. --param edgecut-full.t=10")
        solvers.get(name)  # unknown solver -> one-line error
        if name not in solver_names:
            raise HopbenchError(f"--param {item!r} names solver {name!r}, which is not among the solvers run "
                                f"({', '.join(solver_names)})")
        grid.setdefault(name, {})[key] = [v.strip() for v in value.split(",")]
    return grid


def _param_sets(name: str, overrides: dict[str, list[str]]) -> list[tuple[dict[str, Any], str]]:
    """Every combination of the given values, resolved against the solver's declarations."""
    import solvers

    keys = list(overrides)
    out = []
    for combo in itertools.product(*(overrides[k] for k in keys)) if keys else [()]:
        solver = solvers.create(name, **dict(zip(keys, combo)))  # validates names and types
        chosen = {k: solver.config[k] for k in keys}
        out.append((dict(solver.config), params_tag(chosen)))
    return out


def plan_matrix(suite: Suite, *, solver_names: list[str] | None = None, instances: str | None = None,
                split: str | None = None, seeds: list[int] | None = None, time_limit: float | None = None,
                param_items: list[str] | None = None, store: Store | None = None, rerun: str | None = None,
                jobs: int = 1, tuned: dict[str, dict[str, Any]] | None = None,
                max_nodes: int | None = None) -> MatrixPlan:
    """Expand the matrix and drop the cells the store already holds (per ``rerun``)."""
    import solvers

    if rerun is not None and rerun not in RERUN_CHOICES:
        raise HopbenchError(f"--rerun must be one of {', '.join(RERUN_CHOICES)}, got {rerun!r}")
    chosen = suite.select(instances, split, max_nodes)
    kinds = {i.kind for i in chosen}
    names = list(dict.fromkeys(solver_names)) if solver_names else \
        [n for n in solvers.names() if kinds & set(solvers.get(n).kinds)]
    for name in names:
        solvers.get(name)
    grid = parse_param_grid(param_items or [], names)
    seeds = seeds or list(range(1, int(suite.raw.get("seeds", 1)) + 1))
    limit = effective_time_limit(time_limit, suite)
    threads = threads_per_worker(jobs)
    cells = []
    for name in names:
        overrides = dict(grid.get(name, {}))
        for key, value in (tuned or {}).get(name, {}).items():
            overrides.setdefault(key, [str(value)])
        sets = _param_sets(name, overrides)
        kinds_of = set(solvers.get(name).kinds)
        for inst in chosen:
            if inst.kind not in kinds_of:
                continue
            for params, tag in sets:
                for seed in seeds:
                    cells.append(make_cell(suite=suite.name, instance=inst, solver=name, params=params, seed=seed,
                                           time_limit=limit, evaluations=suite.evaluations, params_tag=tag,
                                           threads=threads))
    if not cells:
        raise HopbenchError(f"no cells to run: none of the solvers {', '.join(names)} solves the "
                            f"{'/'.join(sorted(kinds))} problems of suite {suite.name}")
    done = store.statuses([c["key"] for c in cells]) if store is not None else {}
    if rerun == "all":
        todo = cells
    elif rerun == "failed":
        todo = [c for c in cells if done.get(c["key"]) in (None, "error", "timeout")]
    else:
        todo = [c for c in cells if c["key"] not in done]
    return MatrixPlan(suite, cells, todo, len(cells) - len(todo))


def git_commit() -> str | None:
    root = REPO_ROOT
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() or None


def make_executor(jobs: int, scheduler: str | None):
    """Local threads driving sandboxes, or a Dask distributed client's executor."""
    if scheduler is None:
        return cf.ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="hopbench-cell"), None
    try:
        from distributed import Client
    except ModuleNotFoundError:
        raise HopbenchError("--scheduler needs Dask distributed; install it with pip install 'distributed'") from None
    try:
        client = Client(scheduler, timeout="5s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise HopbenchError(f"cannot reach the Dask scheduler at {scheduler} ({exc.__class__.__name__}); start one "
                            f"with 'dask scheduler' or drop --scheduler") from None
    return client.get_executor(pure=False), client


def execute_plan(plan: MatrixPlan, store: Store, *, jobs: int = 1, scheduler: str | None = None,
                 progress: bool = True, extra: dict[str, Any] | None = None,
                 executor: tuple | None = None) -> RunReport:
    """Run the cells still to do and record each one as it finishes.

    ``executor`` is an ``(executor, client)`` pair from :func:`make_executor` when the
    caller connected already (to fail on an unreachable scheduler before printing anything).
    """
    from tqdm import tqdm

    from harness.bench.sandbox import close_all, run_isolated

    report = RunReport(total=len(plan.cells), ran=0, already_done=plan.skipped_done)
    if not plan.todo:
        if executor is not None:
            executor[0].shutdown(wait=False)
            if executor[1] is not None:
                executor[1].close()
        return report
    commit = git_commit()
    executor, client = executor or make_executor(jobs, scheduler)
    bar = tqdm(total=len(plan.todo), disable=not progress, unit="cell", dynamic_ncols=True, file=sys.stderr)
    failures = 0
    try:
        futures = {executor.submit(run_isolated, cell): cell for cell in plan.todo}
        for fut in cf.as_completed(futures):
            cell = futures[fut]
            try:
                result = fut.result()
            except Exception as exc:  # the executor itself failed this cell (e.g. a lost Dask worker)
                result = failed_result(cell, "error", f"executor: {type(exc).__name__}: {exc}")
            store.record(result_row(cell, result, commit, extra), result.get("trace") or [])
            report.ran += 1
            report.statuses[result["status"]] += 1
            if result["status"] in ("error", "timeout"):
                failures += 1
            bar.set_postfix(failures=failures, refresh=False)
            bar.update(1)
    except KeyboardInterrupt:
        for fut in futures:
            fut.cancel()
        raise
    finally:
        bar.close()
        try:
            executor.shutdown(wait=False, cancel_futures=True)
        except TypeError:  # Dask's executor has no cancel_futures
            executor.shutdown(wait=False)
        if client is not None:
            client.close()
        close_all()
    return report


def summary_table(store: Store, plan: MatrixPlan) -> str:
    """Per solver and parameter set: cells by status, mean objective and median time (this matrix only)."""
    import pandas as pd

    df = store.dataframe(suite=plan.suite.name, with_solutions=False)
    keys = {c["key"] for c in plan.cells}
    df = df[df["cell_key"].isin(keys)]
    if df.empty:
        return "(nothing recorded)"
    rows = []
    for (solver, tag), g in df.groupby(["solver", "params_tag"], sort=True):
        ok = g[g.status == "ok"]
        rows.append({
            "solver": solver, "params": tag, "cells": len(g),
            **{s: int((g.status == s).sum()) for s in ("ok", "error", "timeout", "skipped")},
            "mean objective": ok.objective.mean() if len(ok) else float("nan"),
            "median time s": ok.elapsed_s.median() if len(ok) else float("nan"),
        })
    return pd.DataFrame(rows).to_string(index=False, float_format=lambda x: f"{x:.4g}")
