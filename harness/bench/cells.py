"""A cell is one run of the benchmark matrix: instance x solver x params x seed.

Cells and their results travel as plain dicts (they cross process and machine
boundaries); this module is the one place that shapes them: a cell
(:func:`make_cell`), the result of running one (:func:`run_cell`, which turns every
outcome — a solution, a solver exception, an invalid solution, a declined problem
— into a result dict), the result of a cell that produced nothing
(:func:`failed_result`), the coordinator's re-verification of a result before it is recorded
(:func:`recheck`), and the store row of a finished cell (:func:`result_row`).
Timeouts and crashes are handled one level up, by the sandbox that hosts the run
(:mod:`hopbench.harness.bench.sandbox`).
"""
from __future__ import annotations

import os
import platform
import socket
import traceback
from typing import Any

from hopbench import solvers
from hopbench.harness.errors import HopbenchError, InvalidSolution, SolverDeclined
from hopbench.solvers.contract.limits import hard_limit as contract_hard_limit
from hopbench.solvers.contract.limits import warm_up_limit as contract_warm_up_limit
from hopbench.solvers.contract.warmup import WarmUpFailed, warm_up_solver


def make_cell(*, suite: str, instance: Any, solver: str, params: dict[str, Any], seed: int,
              time_limit: float, evaluations: int | None, params_tag: str, threads: int = 1) -> dict[str, Any]:
    from hopbench.harness.bench.store import cell_key

    return {
        "key": cell_key(suite, instance.id, solver, params, seed, time_limit, evaluations),
        "suite": suite,
        "instance": instance.id,
        "kind": instance.kind,
        "fields": instance.fields,
        "solver": solver,
        "params": params,
        "params_tag": params_tag,
        "seed": int(seed),
        "time_limit": float(time_limit),
        "evaluations": evaluations,
        "threads": int(threads),
    }


def result_row(cell: dict[str, Any], result: dict[str, Any], commit: str | None,
               extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``runs`` row of a finished cell: the cell's identity, then the result's outcome and
    provenance (its ISO times are parsed by :meth:`Store.record`)."""
    row = {
        "cell_key": cell["key"], "suite": cell["suite"], "instance": cell["instance"],
        "instance_spec": cell["fields"], "kind": cell["kind"], "solver": cell["solver"],
        "params": cell["params"], "params_tag": cell["params_tag"], "seed": cell["seed"],
        "time_limit_s": cell["time_limit"], "git_commit": commit,
    }
    for key in ("status", "error", "objective", "diameter", "aspl", "metrics", "elapsed_s", "evaluations",
                "solution", "hopbench_version", "python_version", "numpy_version", "numba_version", "host",
                "cores", "started_at", "finished_at"):
        row[key] = result.get(key)
    row.update(extra or {})
    return row


def failed_result(cell: dict[str, Any], status: str, error: str, *, elapsed_s: float | None = None,
                  started_at: str | None = None) -> dict[str, Any]:
    """The result of a cell that produced nothing: killed (``timeout``), or its worker or executor failed."""
    from hopbench.harness.bench.store import now

    return {"key": cell["key"], "status": status, "error": error, "elapsed_s": elapsed_s,
            "started_at": started_at, "finished_at": now().isoformat(), "trace": []}


def hard_limit(cell: dict[str, Any]) -> float:
    """Seconds after which a running cell is killed (the contract's rule: 1.2 x its time limit + 5 s)."""
    return contract_hard_limit(cell["time_limit"])


def provenance() -> dict[str, Any]:
    import numba
    import numpy

    from hopbench.harness import __version__

    return {
        "hopbench_version": __version__,
        "python_version": platform.python_version(),
        "numpy_version": numpy.__version__,
        "numba_version": numba.__version__,
        "host": socket.gethostname(),
        "cores": os.cpu_count(),
    }


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    # the innermost frame says where it broke, which the message alone often does not
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" (at {os.path.basename(tb[-1].filename)}:{tb[-1].lineno})" if tb else ""
    return first[:900] + where


def out_of_memory(exc: BaseException) -> str:
    """The one-line error of a run that ran out of memory; in a plug-in's sandbox it names the limit it hit
    (``RLIMIT_AS``, :func:`hopbench.solvers.contract.limits.plugin_memory_limit`) and how to raise it."""
    import resource

    from hopbench.solvers.contract.limits import PLUGIN_MEMORY_LIMIT_ENV, shown_bytes

    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if os.environ.get("HOPBENCH_SANDBOX_ADDRESS_SPACE") and limit != resource.RLIM_INFINITY:
        return (f"out of memory: the solver went past the {shown_bytes(limit)} of address space a plug-in's sandbox "
                f"may map (RLIMIT_AS; {PLUGIN_MEMORY_LIMIT_ENV}=SIZE allows more) [{_one_line(exc)}]")
    return f"out of memory: {_one_line(exc)}"


def trusted(cell: dict[str, Any]) -> bool:
    """Whether the cell's solver is shipped with hopbench (:func:`hopbench.solvers.is_builtin`); every other solver is
    a plug-in, held to the hard limits whatever it promises."""
    return solvers.is_builtin(cell["solver"])


def warm_up_limit(cell: dict[str, Any]) -> float:
    """How long the one-time warm-up before ``cell`` may take (:func:`hopbench.solvers.contract.limits.warm_up_limit`):
    generous for a shipped solver, whose only slow part is JIT compilation; ``$HOPBENCH_PLUGIN_WARMUP_LIMIT``
    (60 s) for a plug-in, which could ignore its budgets."""
    return contract_warm_up_limit(cell["time_limit"], trusted(cell))


def warm_up(cell: dict[str, Any]) -> None:
    """Warm up the cell's solver (:func:`hopbench.solvers.contract.warmup.warm_up_solver`).

    A plug-in is warmed up strictly, its runs sharing a time budget of its warm-up limit:
    a failure raises :class:`~hopbench.solvers.contract.warmup.WarmUpFailed`, which the sandbox
    records as the cell's result (see :func:`warm_up_failure`).
    """
    if trusted(cell):
        warm_up_solver(cell["solver"], cell["params"])
    else:
        warm_up_solver(cell["solver"], cell["params"], time_s=warm_up_limit(cell), strict=True)


def warm_up_failure(exc: WarmUpFailed) -> str:
    """The one-line error of a cell whose solver's warm-up failed (it starts with ``warm-up``)."""
    cause = out_of_memory(exc.cause) if isinstance(exc.cause, MemoryError) else _one_line(exc.cause)
    return (f"warm-up failed on warm-up problem {exc.index}/{exc.count} of kind {exc.kind}: {cause}; "
            f"a solver must solve or decline every warm-up problem of its kinds (the conformance suite, "
            f"hopbench.harness.testing, checks it)")


def run_cell(cell: dict[str, Any]) -> dict[str, Any]:
    """Run one cell in this process and describe the outcome (never raises for solver failures)."""
    from hopbench import solvers
    from hopbench.harness.bench.store import now
    from hopbench.harness.bench.suites import Instance
    from hopbench.solvers.contract.budget import Budget
    from hopbench.solvers.contract.execution import execute

    result: dict[str, Any] = {"key": cell["key"], "started_at": now().isoformat(), "trace": []}
    result.update(provenance())
    try:
        instance = Instance(id=cell["instance"], suite=cell["suite"], kind=cell["kind"], fields=cell["fields"])
        problem = instance.problem()
        solver = solvers.create(cell["solver"], **cell["params"])
        budget = Budget(time_s=cell["time_limit"], evaluations=cell.get("evaluations"))
        outcome = execute(solver, problem, seed=cell["seed"], budget=budget)
        ev = outcome.solution.evaluation
        metrics = ev.metrics()
        result.update(
            status="ok", error=None, objective=ev.objective,
            diameter=metrics.get("diameter"), aspl=metrics.get("aspl"), metrics=metrics,
            elapsed_s=outcome.elapsed_s, evaluations=outcome.evaluations,
            solution=outcome.solution.to_dict(),
            trace=[(p.elapsed_s, p.evaluations, p.value) for p in outcome.trace],
        )
    except SolverDeclined as exc:
        result.update(status="skipped", error=exc.reason)
    except InvalidSolution as exc:
        result.update(status="error", error=f"invalid solution: {exc}")
    except HopbenchError as exc:
        result.update(status="error", error=str(exc))
    except MemoryError as exc:  # e.g. a plug-in past its sandbox's address-space limit
        result.update(status="error", error=out_of_memory(exc))
    except Exception as exc:  # a solver bug must not sink the matrix
        result.update(status="error", error=_one_line(exc))
    result["finished_at"] = now().isoformat()
    return result


#: the start of the error of a cell whose solution the coordinator refused (:func:`recheck`)
REFUSED = "refused by hopbench's re-verification"


def cell_problem(cell: dict[str, Any], cache: dict[str, Any] | None = None) -> Any:
    """The problem of ``cell``, built by its kind from the cell's fields (``cache`` keeps one per instance)."""
    import json

    from hopbench.harness.bench.suites import Instance

    key = json.dumps([cell["kind"], cell["fields"]], sort_keys=True, default=str)
    if cache is not None and key in cache:
        return cache[key]
    problem = Instance(id=cell["instance"], suite=cell["suite"], kind=cell["kind"], fields=cell["fields"]).problem()
    if cache is not None:
        cache[key] = problem
    return problem


def recheck(cell: dict[str, Any], result: dict[str, Any], cache: dict[str, Any] | None = None) -> dict[str, Any]:
    """``result`` as the coordinator records it: an ``ok`` result only once hopbench itself has re-verified it.

    A solver runs in a sandbox and reports a solution document and its metrics; none of it is trusted.
    The document must answer the cell's own problem and verify from scratch
    (:meth:`~hopbench.harness.problems.kind.ProblemKind.check_result`), and no value of the solver's trace may lie
    below the problem's lower bound.  The recorded metrics are the recomputed ones; a solver's own numbers
    only ever served as a hint.  A result that fails becomes an ``error`` saying why (its document is kept,
    as evidence); other statuses pass unchanged.
    """
    if result.get("status") != "ok":
        return result
    from hopbench.harness.problems.registry import get_kind

    try:
        kind = get_kind(cell["kind"])
        problem = cell_problem(cell, cache)
        doc = result.get("solution")
        if not isinstance(doc, dict):
            raise HopbenchError("the result carries no solution document")
        verdict = kind.check_result(problem, doc, trusted=trusted(cell))
        reason = verdict.reason if not verdict.valid else _trace_below_bound(kind, problem, result.get("trace"))
    except InvalidSolution as exc:
        verdict, reason = None, f"invalid solution: {exc}"
    except HopbenchError as exc:
        verdict, reason = None, str(exc)
    except Exception as exc:  # a malformed document must not sink the matrix either
        verdict, reason = None, _one_line(exc)
    if reason:
        return {**result, "status": "error", "error": f"{REFUSED}: {reason}"[:1200], "objective": None,
                "diameter": None, "aspl": None, "metrics": None}
    metrics = dict(verdict.metrics)
    return {**result, "objective": metrics.get("objective"), "diameter": metrics.get("diameter"),
            "aspl": metrics.get("aspl"), "metrics": metrics}


def _trace_below_bound(kind: Any, problem: Any, trace: Any) -> str:
    """Why the anytime trace cannot be true (a value under the problem's lower bound), or ``""``."""
    import math

    from hopbench.harness.problems.kind import TOLERANCE

    if not trace:
        return ""
    bound = kind.known_value_lower_bound(problem)
    if bound is None or not math.isfinite(float(bound)):
        return ""
    bound = float(bound)
    for point in trace:
        value = point[2] if isinstance(point, (list, tuple)) and len(point) == 3 else None
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return f"the trace holds a point that is no (time, evaluations, value) triple: {str(point)[:60]}"
        if float(value) < bound - TOLERANCE * max(1.0, abs(bound)):
            return f"the trace reports objective {float(value):.6g}, below the problem's lower bound {bound:.6g}"
    return ""
